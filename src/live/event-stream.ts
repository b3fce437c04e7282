// The body of the live event routes — GET /api/sdk/conversations/{session_id}/events (the
// customer's) and GET /api/tickets/{id}/events (the team's): Server-Sent Events (HTML Living
// Standard, "Server-sent events"). Each event is a row of ticket_events, so its `id:` is the row's
// sequence number and a reconnect with `Last-Event-ID` resumes from the database — after a restart,
// or on another instance — never from this process's memory. A wake-up (src/live/live-events.ts)
// or a heartbeat makes the stream read what is new; reads of one stream never overlap, so events
// leave in order and once.
// Bounded: a stream holds at most STREAM_BUFFER_BYTES not yet taken by the connection. When the
// next event does not fit, the stream waits (the event stays a row; it is read again once the
// client has taken some). A client that takes nothing for a heartbeat interval while the stream is
// full is ended, and the connection with it: what was queued is dropped (a graceful close would
// keep it, and the connection, for as long as the client does not read). The events it missed are
// rows, so its reconnect with Last-Event-ID gets them (README "Live conversation").
import type { Deps } from "../deps.ts";
import { messageOf } from "../errors.ts";
import { liftIdleTimeout } from "../http/request-meta.ts";

/** The most bytes one stream may hold unsent (README "Live conversation", "Bounded"). */
export const STREAM_BUFFER_BYTES = 256 * 1024;

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

export function eventStream(deps: Deps, options: EventStreamOptions): Response {
  const encoder = new TextEncoder();
  let last = options.after;
  let open = true;
  let reading = false;
  let again = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let unsubscribe = () => {};
  /** A read stopped because the next event did not fit; the client taking some resumes it. */
  let full = false;
  /** Heartbeats that found the stream full since the client last took anything. */
  let stalled = 0;
  const counted = deps.metrics.streamOpened("events");
  /** Bytes queued in the stream that the connection has not taken yet. */
  const unsent = () => STREAM_BUFFER_BYTES - (controller.desiredSize ?? 0);

  /** Queues `text`; false when the stream is over, or full (then `full` is set). */
  const write = (text: string): boolean => {
    if (!open) return false;
    const bytes = encoder.encode(text);
    if (unsent() > 0 && unsent() + bytes.byteLength > STREAM_BUFFER_BYTES) {
      full = true;
      return false;
    }
    try {
      controller.enqueue(bytes);
      return true;
    } catch {
      end();
      return false;
    }
  };
  /** Ends the stream: closed after what is queued, or — `drop` — at once, with the connection. */
  const end = (drop = false) => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    unsubscribe();
    options.release();
    counted();
    try {
      if (drop) controller.error(new DOMException("The client took nothing while the stream was full.", "AbortError"));
      else controller.close();
    } catch {}
  };
  const read = async () => {
    if (full) return; // pull() reads once there is room
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const events = await options.read(last);
        const sent: StreamEvent[] = [];
        for (const event of events) {
          if (!write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`)) break;
          last = event.id;
          sent.push(event);
        }
        if (open && sent.length > 0 && options.reader.kind === "customer") options.reader.delivered(sent);
        if (events.length === options.page) again = true;
      } while (again && open && !full);
    } catch (error) {
      // The client reconnects with the last id it got: nothing is lost by ending here.
      deps.log.warn("event stream read failed", { error: messageOf(error) });
      end();
    } finally {
      reading = false;
    }
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        write(`retry: ${RETRY_MS}\n: open\n\n`);
        const signal = (type: string, data: Record<string, unknown>) => void (!full && write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`));
        const side = options.signals ? { side: options.reader.kind, signal } : {};
        unsubscribe = deps.live.subscribe(options.key, { wake: () => void read(), close: () => end(), ...side });
        heartbeat = setInterval(() => {
          if (full && ++stalled > 1) {
            deps.log.info("event stream ended: the client is not taking what it is sent", { unsent_bytes: unsent() });
            end(true);
            return;
          }
          if (!full && write(": heartbeat\n\n")) void read();
        }, deps.config.sdkStreams.heartbeatSeconds * 1000);
        options.request.signal.addEventListener("abort", () => end(), { once: true });
        void read();
      },
      // The connection took some of what was queued: there is room again.
      pull() {
        stalled = 0;
        if (!full) return;
        full = false;
        void read();
      },
      cancel: () => end(),
    },
    // Counted in bytes, so desiredSize tells how much the connection has not taken.
    { highWaterMark: STREAM_BUFFER_BYTES, size: (chunk) => chunk?.byteLength ?? 0 },
  );
  liftIdleTimeout(options.request);
  return new Response(body, { status: 200, headers: EVENT_STREAM_HEADERS });
}
