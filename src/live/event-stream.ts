// The body of the live event routes — GET /api/sdk/conversations/{session_id}/events (the
// customer's) and GET /api/tickets/{id}/events (the team's): Server-Sent Events (HTML Living
// Standard, "Server-sent events"). Each event is a row of ticket_events, so its `id:` is the row's
// sequence number and a reconnect with `Last-Event-ID` resumes from the database — after a restart,
// or on another instance — never from this process's memory. A wake-up (src/live/live-events.ts)
// or a heartbeat makes the stream read what is new; reads of one stream never overlap, so events
// leave in order and once.
import type { Deps } from "../deps.ts";
import { messageOf } from "../errors.ts";
import { liftIdleTimeout } from "../http/request-meta.ts";

/** How long an EventSource waits before reconnecting after a cut (the widget has its own backoff). */
export const RETRY_MS = 3000;

export const EVENT_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  // nginx and similar proxies: pass each event on at once instead of buffering the response.
  "x-accel-buffering": "no",
} as const;

/** One event as the stream sends it: `id:` (a row's sequence number), `event:` and the JSON `data:`. */
export interface StreamEvent {
  id: number;
  type: string;
  data: unknown;
}

export interface EventStreamOptions {
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
}

export function eventStream(deps: Deps, options: EventStreamOptions): Response {
  const encoder = new TextEncoder();
  let last = options.after;
  let open = true;
  let reading = false;
  let again = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let unsubscribe = () => {};

  const write = (text: string) => {
    if (!open) return;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      end();
    }
  };
  const end = () => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    unsubscribe();
    options.release();
    try {
      controller.close();
    } catch {}
  };
  const read = async () => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const events = await options.read(last);
        for (const event of events) {
          write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
          last = event.id;
        }
        if (events.length === options.page) again = true;
      } while (again && open);
    } catch (error) {
      // The client reconnects with the last id it got: nothing is lost by ending here.
      deps.log.warn("event stream read failed", { error: messageOf(error) });
      end();
    } finally {
      reading = false;
    }
  };

  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      write(`retry: ${RETRY_MS}\n: open\n\n`);
      unsubscribe = deps.live.subscribe(options.key, { wake: () => void read(), close: end });
      heartbeat = setInterval(() => {
        write(": heartbeat\n\n");
        void read();
      }, deps.config.sdkStreams.heartbeatSeconds * 1000);
      options.request.signal.addEventListener("abort", end, { once: true });
      void read();
    },
    cancel: end,
  });
  liftIdleTimeout(options.request);
  return new Response(body, { status: 200, headers: EVENT_STREAM_HEADERS });
}
