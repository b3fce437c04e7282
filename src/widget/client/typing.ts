// Typing, both ways, while a person has the conversation (README "Live conversation", "Typing and
// presence"): "<name> is typing…" under the log when the member's typing signal arrives on the
// event stream (./live.ts), hidden by itself a few seconds after the last one or when their message
// arrives; and the customer's own typing told to the member, at most every few seconds. Never stored.
import type { Widget } from "./context.ts";
import { jsonHeaders } from "./context.ts";
import { h } from "./dom.ts";

/** The line hides by itself this long after the last signal (the member's page repeats it every 3 s while typing). */
const SHOWN_MS = 6000;
/** The customer's typing is told at most this often. */
const EVERY_MS = 3000;

export function typingLine(w: Widget, identity: () => Record<string, string>) {
  // The waiting line's look (./waiting.ts), beside it above the composer; a status region, read out once.
  const line = h("p", { class: "typing", role: "status", hidden: "" });
  w.shell.person.before(line);
  let hide: ReturnType<typeof setTimeout> | undefined;
  let told = 0;
  w.shell.input.addEventListener("input", () => {
    const { state } = w;
    if (!state.live || !state.sessionId || Date.now() - told < EVERY_MS) return;
    told = Date.now();
    void fetch(`${w.base}/api/sdk/conversations/${encodeURIComponent(state.sessionId)}/typing`, {
      method: "POST",
      headers: { ...jsonHeaders(w), ...identity() },
      body: JSON.stringify({ typing: true }),
    }).catch(() => {});
  });
  return {
    /** A typing signal of the person: their name, or null when they stopped (or sent). */
    show(name: string | null) {
      clearTimeout(hide);
      // The line takes height from the log: the newest message stays in view (as ./thread.ts does).
      const { log } = w.shell;
      const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
      line.hidden = name === null;
      const text = name === null ? "" : w.texts.t("widget.typing", { name });
      if (line.textContent !== text) line.textContent = text;
      if (atEnd) log.scrollTop = log.scrollHeight;
      if (name !== null) hide = setTimeout(() => (line.hidden = true), SHOWN_MS);
    },
  };
}
