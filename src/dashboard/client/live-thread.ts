// A ticket's thread follows its events (README "Live conversation"): GET /api/tickets/{id}/events
// read with fetch (the org travels as a header) and eventsource-parser; on each event the page's
// thread is fetched again and swapped in, so a customer's new message shows without a reload. The
// inbox list does the same with the org's events (GET /api/tickets/events): any element carrying
// data-live-events and an id is refreshed from the same page fetched again.
// After a cut it reconnects from the last event id, waiting a little longer each time (at most 30 s).
// A chat's ticket stream also carries signals that are never stored (`typing`, `presence`; no id):
// they are told to the page (./presence.ts), never refresh the thread.
import { createParser } from "eventsource-parser";

/** The org's ticket events (GET /api/tickets/events), followed by the inbox list and the nav. */
export const ORG_EVENTS = "/api/tickets/events";

async function refresh(thread: HTMLElement): Promise<void> {
  const res = await fetch(location.pathname + location.search, { credentials: "same-origin" });
  const fresh = new DOMParser().parseFromString(await res.text(), "text/html").getElementById(thread.id);
  if (fresh) thread.replaceChildren(...Array.from(fresh.childNodes, (node) => document.importNode(node, true)));
}

/** Told the signals of a conversation's stream: `detail` is {type: "typing" | "presence", data}. */
export const LIVE_SIGNAL = "svc:live-signal";
const SIGNALS = new Set(["typing", "presence"]);

/**
 * Follows one event stream (the org travels as a header), calling `changed` after each read that
 * brought events. After a cut it reconnects from the last event id, a little later each time.
 */
export function followEvents(url: string, org: string, lastEventId: string | null, changed: () => Promise<void>): void {
  let last = lastEventId;
  let attempt = 0;
  const connect = async (): Promise<void> => {
    const headers: Record<string, string> = { "X-Org-Id": org };
    if (last) headers["Last-Event-ID"] = last;
    try {
      const res = await fetch(url, { headers, credentials: "same-origin" });
      if (res.status === 401 || res.status === 403 || res.status === 404) return; // signed out or gone: stop
      if (res.ok && res.body) {
        attempt = 0;
        let seen = false;
        const parser = createParser({
          onEvent(event) {
            if (SIGNALS.has(event.event ?? "")) {
              let data: unknown = null;
              try {
                data = JSON.parse(event.data);
              } catch {}
              document.dispatchEvent(new CustomEvent(LIVE_SIGNAL, { detail: { type: event.event, data } }));
              return;
            }
            if (event.id) last = event.id;
            seen = true;
          },
        });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(value);
          if (seen) {
            seen = false;
            await changed().catch(() => {});
          }
        }
      }
    } catch {
      // a cut: reconnect below
    }
    setTimeout(() => void connect(), Math.min(30_000, 1000 * 2 ** attempt++));
  };
  void connect();
}

/** Told when the org's ticket events moved something (the nav's queue counts listen). */
export const TICKETS_CHANGED = "svc:tickets-changed";

function follow(thread: HTMLElement): void {
  const url = thread.getAttribute("data-live-events") ?? "";
  followEvents(url, thread.getAttribute("data-org") ?? "", thread.getAttribute("data-last-event-id"), async () => {
    await refresh(thread);
    // A new message: whoever was typing has sent it.
    document.dispatchEvent(new CustomEvent(LIVE_SIGNAL, { detail: { type: "typing", data: { typing: false } } }));
    if (url === ORG_EVENTS) document.dispatchEvent(new CustomEvent(TICKETS_CHANGED));
  });
}

export function liveThreads(): void {
  document.querySelectorAll<HTMLElement>("[data-live-events]").forEach(follow);
}
