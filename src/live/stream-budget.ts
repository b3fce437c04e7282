// What an event stream (src/live/event-stream.ts) may leave untaken (README "Live conversation",
// "Bounded"; docs/decisions.md "Live event streams: the bound is what the socket has not taken"):
// the write accounting of one stream, apart from its socket so that the bound is tested at its
// byte boundary. Bun's direct stream controller answers `write` with a number when the connection
// took the bytes (0: the client went away) and with a promise when the socket is full and Bun keeps
// the rest. From that moment until the promise settles (the connection drained), every byte written
// counts as not taken; bytes that would bring that count over the bound end the stream at once,
// with the connection (`drop`), and say so once in the log (never what was sent).
import type { Logger } from "../log.ts";

/** The part of Bun's `ReadableStreamDirectController` the budget uses. */
export interface DirectSink {
  write(bytes: Uint8Array): number | Promise<number>;
  flush(): unknown;
}

export interface StreamBudgetOptions {
  sink: DirectSink;
  /** The most bytes handed to a connection that has not taken them. */
  limit: number;
  log: Pick<Logger, "info">;
  /** Ends the stream: after what was written, or — `drop` — at once, with the connection. Called once at most. */
  end(drop: boolean): void;
}

export interface StreamBudget {
  /** Hands `bytes` to the connection; false when the stream is over (ended here if they would pass the bound). */
  write(bytes: Uint8Array): boolean;
  /** Ends the stream as a client that does not take what it is sent (a heartbeat found the same drain awaited twice). */
  endSlow(): void;
  /** The drain awaited (the socket was full), or null while the socket takes what it is given. */
  readonly draining: Promise<unknown> | null;
  /** Bytes written since the socket last reported itself full and not yet drained. */
  readonly unsent: number;
}

export function createStreamBudget(options: StreamBudgetOptions): StreamBudget {
  let unsent = 0;
  let draining: Promise<unknown> | null = null;
  let ended = false;
  const end = (drop = false) => {
    if (ended) return;
    ended = true;
    options.end(drop);
  };
  const endSlow = () => {
    if (ended) return;
    options.log.info("event stream ended: the client is not taking what it is sent", { unsent_bytes: unsent });
    end(true);
  };
  return {
    get draining() {
      return draining;
    },
    get unsent() {
      return unsent;
    },
    endSlow,
    write(bytes) {
      if (ended) return false;
      if (draining && unsent + bytes.byteLength > options.limit) {
        endSlow();
        return false;
      }
      let taken: number | Promise<number>;
      try {
        taken = options.sink.write(bytes);
      } catch {
        end();
        return false;
      }
      if (taken === 0) {
        end(); // the client went away
        return false;
      }
      if (typeof taken === "number") {
        if (!draining) options.sink.flush();
        else unsent += bytes.byteLength;
        return true;
      }
      // The socket is full: Bun holds what it did not take until the connection drains.
      unsent += bytes.byteLength;
      if (!draining) {
        const drain: Promise<unknown> = taken.then(
          () => {
            if (draining !== drain) return;
            draining = null;
            unsent = 0;
          },
          () => end(),
        );
        draining = drain;
      }
      return true;
    },
  };
}
