// While a ticket waits for a person: a line above the composer says so, and neither the button that
// asks for a person nor "Video call" is offered. A ticket the assistant opened on its own leaves it answering
// meanwhile (README "Live conversation"); one the customer asked for does not. A person's reply ends
// the line; the ticket resolved or closed (./live.ts) ends the waiting and brings the button back.
// The line is the one place that says a ticket is open and who answers where: the assistant's reply
// already announces the ticket, so the log gets no note of its own (./live.ts describeAction), and
// this line, a status region, is what a screen reader announces.
import { h } from "./dom.ts";
import type { Json, Stored } from "./store.ts";
import type { Texts } from "./texts.ts";

/** `hasEmail`: whether the customer has an address we answer at (identified with one, or left at hand-off). */
export function waitingForPerson(state: Stored, person: HTMLElement, texts: Texts, hasEmail: () => boolean) {
  const line = h("p", { class: "waiting", role: "status", hidden: "" });
  person.before(line);
  return {
    /** Shows what the stored state says; called on every render. */
    update() {
      const waiting = state.live ? state.waiting : null;
      person.hidden = Boolean(waiting);
      // Nor is a video call (./video.ts) offered meanwhile: its button reads as a call with the person awaited.
      person.parentElement?.classList.toggle("awaiting-person", Boolean(waiting));
      line.hidden = !waiting || waiting.answered === true;
      const byEmail = hasEmail() || (state.contact?.ticket === waiting?.ticket && state.contact?.email);
      const { t } = texts;
      const text = !waiting
        ? ""
        : `${waiting.team ? t("widget.waiting_team", { number: waiting.ticket, team: waiting.team }) : t("widget.waiting", { number: waiting.ticket })} ${
            waiting.auto ? t("widget.waiting_auto") : byEmail ? t("widget.waiting_email") : t("widget.waiting_here")
          }`;
      if (line.textContent !== text) line.textContent = text;
    },
    /** An action of the chat: a ticket opened or joined starts the waiting; a person who owns it has answered. */
    seen(action: Json) {
      const ticket = Number(action.ticket_number);
      const team = typeof action.team === "string" && action.team ? action.team : undefined;
      if (action.type === "ticket_created") state.waiting = { ticket, auto: action.reason === "escalation", ...(team ? { team } : {}) };
      else if (action.type === "ticket_updated" && action.reason === "person_owns") state.waiting = { ticket, auto: false, answered: true };
      else if (action.type === "ticket_updated") state.waiting ??= { ticket, auto: false };
    },
  };
}
