// Live conversation events as the features that use them see them: the inbox wakes readers after
// it commits an event, the SDK's event streams subscribe. Built by src/live/live-events.ts.

/** Which side of a conversation a stream serves: the customer's widget, or a member's page. */
export type LiveSide = "customer" | "member";

/** One open event stream: woken when events of its key may be new, closed on shutdown. */
export interface LiveListener {
  wake(): void;
  close(): void;
  /**
   * Set on the streams of one conversation that also carry signals (README "Live conversation",
   * "Typing and presence"): a customer's stream counts as the customer being on the site; a
   * member's hears that, and each side hears the other's typing.
   */
  side?: LiveSide;
  /** A signal for the client, never stored: sent at once, or dropped (a full stream). */
  signal?(type: string, data: Record<string, unknown>): void;
}

export interface LiveEvents {
  /** After a commit in this process: wakes this process's readers of `key` now (other instances hear it through NOTIFY). */
  wake(key: string): void;
  /** Listens for `key` (a conversation id, or a ticket id without one); returns the function that stops. */
  subscribe(key: string, listener: LiveListener): () => void;
  /**
   * Tells the other side's streams of `key`, on every instance, that `from` is typing (or stopped).
   * Never stored; one signal per key, side and state a second at most, the rest dropped.
   * Returns whether it was passed on.
   */
  typing(key: string, from: LiveSide, data: { typing: boolean; name?: string }): boolean;
  /**
   * Counts one more open stream for `client` against both caps; returns its release, or null when
   * `client` already holds `perClient` streams or the process holds `max`.
   */
  admit(client: string, caps: { perClient: number; max: number }): (() => void) | null;
  /** Streams open in this process. */
  readonly open: number;
}
