// Live conversation events as the features that use them see them: the inbox wakes readers after
// it commits an event, the SDK's event streams subscribe. Built by src/live/live-events.ts.

/** One open event stream: woken when events of its key may be new, closed on shutdown. */
export interface LiveListener {
  wake(): void;
  close(): void;
}

export interface LiveEvents {
  /** After a commit in this process: wakes this process's readers of `key` now (other instances hear it through NOTIFY). */
  wake(key: string): void;
  /** Listens for `key` (a conversation id, or a ticket id without one); returns the function that stops. */
  subscribe(key: string, listener: LiveListener): () => void;
  /**
   * Counts one more open stream for `client` against both caps; returns its release, or null when
   * `client` already holds `perClient` streams or the process holds `max`.
   */
  admit(client: string, caps: { perClient: number; max: number }): (() => void) | null;
  /** Streams open in this process. */
  readonly open: number;
}
