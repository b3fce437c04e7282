// The body of the live event routes — GET /api/sdk/conversations/{session_id}/events (the
// customer's) and GET /api/tickets/{id}/events (the team's): Server-Sent Events (HTML Living
// Standard, "Server-sent events"). Each event is a row of ticket_events, so its `id:` is the row's
// sequence number and a reconnect with `Last-Event-ID` resumes from the database — after a restart,
// or on another instance — never from this process's memory. A wake-up (src/live/live-events.ts)
// or a heartbeat makes the stream read what is new; reads of one stream never overlap, so events
// leave in order and once.
// Bounded (README "Live conversation", "Bounded"; docs/decisions.md "Live event streams: the bound
// is what the socket has not taken"): the body is a direct stream (Bun's `type: "direct"`), whose
// `write` hands bytes straight to the connection and answers with a promise when the socket did
// not take them all — the kernel's send buffer is full and Bun keeps the rest. From that moment
// until the promise settles (the connection drained), every byte written is counted as not taken;
// an event that would bring that count over STREAM_BUFFER_BYTES ends the stream at once, and so
// does a heartbeat that finds the same drain still awaited as the one before (a client that took
// nothing for a whole interval); that accounting is src/live/stream-budget.ts. Ending drops what
// Bun holds and resets the connection: a graceful close would keep both for as long as the client
// does not read. The events it missed are rows,
// so its reconnect with Last-Event-ID gets them. Only events new to the client count: the stream's
// own catch-up (a reconnect far behind, pages read one after another) waits for the socket to
// drain before each next event, so a client that reads, however slowly, is never ended for it.
import type { Deps } from "../deps.ts";
import { AppError, messageOf } from "../errors.ts";
import { liftIdleTimeout } from "../http/request-meta.ts";
import { createStreamBudget, type StreamBudget } from "./stream-budget.ts";

/** The most bytes one stream may have handed to a connection that has not taken them (README "Live conversation", "Bounded"). */
export const STREAM_BUFFER_BYTES = 256 * 1024;

/** How long an EventSource waits before reconnecting after a cut (the widget has its own backoff). */
export const RETRY_MS = 3000;

export const EVENT_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  // nginx and similar proxies: pass each event on at once instead of buffering the response.
  "x-accel-buffering": "no",
} as const;

/**
 * A member's place under the stream caps (README "Live conversation", "Bounded"): `client` names the
 * member and the kind of stream (each kind has its own SDK_STREAMS_PER_KEY_IP budget); returns the
 * release, or throws 429 `too_many_streams` with Retry-After past either cap.
 */
export function admitMemberStream(deps: Pick<Deps, "config" | "live">, client: string): () => void {
  const { perKeyIp, max } = deps.config.sdkStreams;
  const release = deps.live.admit(client, { perClient: perKeyIp, max });
  if (!release)
    throw new AppError(429, "too_many_streams", `Too many open event streams: at most ${perKeyIp} per member, ${max} per server.`, undefined, {
      "retry-after": String(RETRY_MS / 1000),
    });
  return release;
}

/** One event as the stream sends it: `id:` (a row's sequence number), `event:` and the JSON `data:`. */
export interface StreamEvent {
  id: number;
  type: string;
  data: unknown;
}

/**
 * Who reads the stream: a member (the dashboard's ticket page) or the customer (the widget), who is
 * told which events were handed to the connection — only those count as received by the customer
 * (README "Email channel").
 */
export type StreamReader = { kind: "member" } | { kind: "customer"; delivered(events: StreamEvent[]): void };

export interface EventStreamOptions {
  reader: StreamReader;
  /** What wakes it (for ticket events, src/inbox/ticket-events.ts eventKey). */
  key: string;
  /** The events after an id, oldest first, at most `page`. */
  read(after: number): Promise<StreamEvent[]>;
  /** The most events one read returns: a full read is followed by another at once. */
  page: number;
  /** The last event the client has: only later ones are sent. */
  after: number;
  request: Request;
  /** Frees the stream's place under the caps; called once, however the stream ends. */
  release: () => void;
  /**
   * The stream of one conversation also carries its signals, never stored and without an `id:`
   * (README "Live conversation", "Typing and presence"; src/live/signals.ts): `typing` from the
   * other side and, for a member, `presence` of the customer. A full stream drops them.
   */
  signals?: boolean;
}

export function eventStream(deps: Pick<Deps, "config" | "live" | "log" | "metrics">, options: EventStreamOptions): Response {
  const encoder = new TextEncoder();
  let last = options.after;
  let open = true;
  let reading = false;
  let again = false;
  let controller: ReadableStreamDirectController | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let unsubscribe = () => {};
  let finished = () => {};
  const done = new Promise<void>((resolve) => (finished = resolve));
  /** The last read returned less than a page: everything there was has been written. */
  let caughtUp = false;
  /** The write accounting against STREAM_BUFFER_BYTES (src/live/stream-budget.ts), once the body is pulled. */
  let budget: StreamBudget | undefined;
  const draining = () => budget?.draining ?? null;
  const counted = deps.metrics.streamOpened("events");

  /** Ends the stream: closed after what was written, or — `drop` — at once, with the connection. */
  const end = (drop = false) => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    unsubscribe();
    options.release();
    counted();
    try {
      if (drop) controller?.close(new DOMException("The client did not take what it was sent.", "AbortError"));
      else controller?.close();
    } catch {}
    finished();
  };
  /** Hands `text` to the connection; false when the stream is over (ended if that text would pass the bound). */
  const write = (text: string): boolean => open && budget !== undefined && budget.write(encoder.encode(text));

  const read = async () => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        // Events read once the stream had sent all there was are new to the client: if it does not
        // take them, they count against the bound. The stream's own catch-up (the pages after a
        // full one) stops at a full socket instead, keeps none of the page (the events are rows)
        // and reads on once the socket drained, so a client that reads is never ended for it.
        const live = caughtUp;
        const events = await options.read(last);
        const sent: StreamEvent[] = [];
        let paused = false;
        for (const event of events) {
          if (draining() && !live) {
            paused = true;
            break;
          }
          // A new event while the socket is full goes on after a turn of the event loop, in which a
          // client that reads is seen to drain it.
          if (draining()) await new Promise((resolve) => setImmediate(resolve));
          if (!write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`)) break;
          last = event.id;
          sent.push(event);
        }
        caughtUp = !paused && events.length < options.page;
        if (open && sent.length > 0 && options.reader.kind === "customer") options.reader.delivered(sent);
        if (paused && draining()) {
          await Promise.race([draining(), done]);
          again = true;
        } else if (events.length === options.page) again = true;
      } while (again && open);
    } catch (error) {
      // The client reconnects with the last id it got: nothing is lost by ending here.
      deps.log.warn("event stream read failed", { error: messageOf(error) });
      end();
    } finally {
      reading = false;
    }
  };

  const source: Bun.DirectUnderlyingSource<Uint8Array> = {
    type: "direct",
    // Bun.serve calls this once and keeps the response open until the promise it returns settles.
    pull(c) {
      if (controller) return done;
      controller = c;
      budget = createStreamBudget({ sink: c, limit: STREAM_BUFFER_BYTES, log: deps.log, end });
      write(`retry: ${RETRY_MS}\n: open\n\n`);
      // Typing and presence signals are dropped while the socket is full: they are only worth it live.
      const signal = (type: string, data: Record<string, unknown>) => void (!draining() && write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`));
      const side = options.signals ? { side: options.reader.kind, signal } : {};
      unsubscribe = deps.live.subscribe(options.key, { wake: () => void read(), close: () => end(), ...side });
      let watched: Promise<unknown> | null = null;
      heartbeat = setInterval(() => {
        // The drain awaited at the last heartbeat is still awaited: the client took nothing for a whole interval.
        if (draining() && draining() === watched) return budget?.endSlow();
        watched = draining();
        if (write(": heartbeat\n\n")) void read();
      }, deps.config.sdkStreams.heartbeatSeconds * 1000);
      options.request.signal.addEventListener("abort", () => end(), { once: true });
      void read();
      return done;
    },
    cancel: () => end(),
  };
  // DOM's ReadableStream typings (tsconfig "lib") hide Bun's direct-source overload.
  const body = new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>);
  liftIdleTimeout(options.request);
  return new Response(body, { status: 200, headers: EVENT_STREAM_HEADERS });
}
