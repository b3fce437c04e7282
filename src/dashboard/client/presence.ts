// A chat conversation's live signals on its pages (README "Live conversation", "Typing and
// presence"): whether the customer is on the site now (their widget's event stream open), the
// customer typing, and — as the member writes a reply — telling the widget that they are typing.
// The ticket page hears the signals on its thread's stream (./live-thread.ts); the conversation
// page follows a stream of its own (data-presence-events). Nothing here is stored anywhere.
import { followEvents, LIVE_SIGNAL } from "./live-thread.ts";

/** The typing line hides by itself this long after the last signal (the widget repeats it every few seconds while typing). */
const TYPING_SHOWN_MS = 6000;
/** A member's typing is told at most this often. */
const TYPING_EVERY_MS = 3000;

function showPresence(line: HTMLElement, online: boolean): void {
  const badge = document.createElement("span");
  badge.className = online ? "badge ok" : "badge";
  badge.textContent = online ? "on the site now" : "not on the site";
  line.replaceChildren(
    badge,
    online
      ? " The customer's chat is open on your site: they see your replies as you send them."
      : " The customer's chat is not open now: a reply waits for them (and goes by email where we have their address).",
  );
}

export function liveSignals(): void {
  const lines = document.querySelectorAll<HTMLElement>(".presence");
  const typing = document.querySelectorAll<HTMLElement>("[data-typing-of]");
  let hide: ReturnType<typeof setTimeout> | undefined;
  document.addEventListener(LIVE_SIGNAL, (event) => {
    const { type, data } = (event as CustomEvent<{ type: string; data: { online?: unknown; typing?: unknown } | null }>).detail;
    if (type === "presence") for (const line of lines) showPresence(line, data?.online === true);
    if (type === "typing") {
      const on = data?.typing === true;
      for (const el of typing) el.hidden = !on;
      clearTimeout(hide);
      if (on) hide = setTimeout(() => typing.forEach((el) => (el.hidden = true)), TYPING_SHOWN_MS);
    }
  });
  document.querySelectorAll<HTMLElement>("[data-presence-events]").forEach((line) => {
    followEvents(line.getAttribute("data-presence-events") ?? "", line.getAttribute("data-org") ?? "", null, async () => {});
  });
  // The member writing a reply: the widget shows "<name> is typing…".
  document.querySelectorAll<HTMLFormElement>("form[data-typing]").forEach((form) => {
    let last = 0;
    form.addEventListener("input", () => {
      if (Date.now() - last < TYPING_EVERY_MS) return;
      last = Date.now();
      void fetch(form.getAttribute("data-typing") ?? "", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json", "X-Org-Id": form.getAttribute("data-org") ?? "" },
        body: JSON.stringify({ typing: true }),
      }).catch(() => {});
    });
  });
}
