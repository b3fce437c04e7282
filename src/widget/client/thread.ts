// The thread: the log of messages (a live region), the busy flag and the wait after a 429.
import { h, messageBubble } from "./dom.ts";
import type { StoredMessage } from "./store.ts";
import type { Widget } from "./context.ts";
import { waitingForPerson } from "./waiting.ts";
import { contactPrompt } from "./contact.ts";

export interface Thread {
  render(): void;
  /** The line shown while a ticket waits for a person (./waiting.ts). */
  waiting: ReturnType<typeof waitingForPerson>;
  busy(): boolean;
  setBusy(value: boolean): void;
  /** After a 429, until its Retry-After has passed: says how long to wait, and nothing is sent. */
  holding(): boolean;
  waitFor(seconds: number): void;
  /** Takes a message out of the log and the state (an empty reply). */
  drop(message: StoredMessage, el: HTMLElement): void;
}

export function createThread(w: Widget, retryAt: (index: number) => void): Thread {
  const { log, send, person, status } = w.shell;
  const { state } = w;
  let busy = false;
  let waitUntil = 0;
  const waiting = waitingForPerson(state, person, w.texts, () => Boolean(w.identity?.email));
  const contact = contactPrompt(w, person, () => waiting.update());
  const bubble = (m: StoredMessage, index: number): HTMLElement => messageBubble(m, w.texts, () => retryAt(index));
  // The log is a live region: new messages are appended, never the whole history re-inserted
  // (which a screen reader would read out again); only a reset or a retry rebuilds it.
  let shown: StoredMessage[] = [];
  const render = () => {
    const appended = shown.length > 0 && shown.length <= state.messages.length && shown.every((m, i) => state.messages[i] === m);
    if (appended) log.append(...state.messages.slice(shown.length).map((m, i) => bubble(m, shown.length + i)));
    else {
      log.replaceChildren(...state.messages.map(bubble));
      if (state.messages.length === 0) log.append(h("p", { class: "empty" }, w.greeting ?? w.texts.t("widget.greeting")));
    }
    shown = [...state.messages];
    // The lines under the log first: they take height from it, and the newest message must stay in view.
    waiting.update();
    contact.update();
    log.scrollTop = log.scrollHeight;
  };
  return {
    render,
    waiting,
    busy: () => busy,
    setBusy(value) {
      busy = value;
      log.setAttribute("aria-busy", String(value));
      send.disabled = value;
      person.disabled = value;
    },
    holding() {
      if (Date.now() >= waitUntil) return false;
      status.textContent = w.texts.t("widget.wait", { seconds: Math.ceil((waitUntil - Date.now()) / 1000) });
      return true;
    },
    waitFor(seconds) {
      waitUntil = Date.now() + seconds * 1000;
    },
    drop(message, el) {
      if (state.messages.includes(message)) state.messages.splice(state.messages.indexOf(message), 1);
      if (shown.includes(message)) shown.splice(shown.indexOf(message), 1);
      el.remove();
    },
  };
}
