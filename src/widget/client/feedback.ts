// "Did that help?" under an AI answer, and the rating prompt when a ticket is resolved (README
// "Reports" and "CSAT"). Yes is recorded as a confirmed resolution; no offers a person. The rating
// is 1–5 with an optional comment, sent once; the service keeps the first rating. The prompt is
// kept in the stored state until it is answered or dismissed ("Not now"), so a reload asks again;
// whether to ask is still the service's answer each time (resolved and not rated yet: a ticket
// rated from the email's link, or reopened, is not asked about).
import { h } from "./dom.ts";
import type { Json, Stored } from "./store.ts";
import type { Texts } from "./texts.ts";
import { en } from "../../i18n/en.ts";

export interface FeedbackContext {
  state: Stored;
  texts: Texts;
  save(): void;
  /** The message box, which takes focus when the prompt is dismissed. */
  input: HTMLElement;
  post(path: string, body: Json): Promise<Json>;
  who(): Json;
  askPerson(): void;
  /** The "talk to a person" label (the agent's own, else the catalogue's). */
  liveHelpLabel(): string;
  base: string;
  key: string;
}

/**
 * The org's own rating question, or null: the service answers its English default when the org set
 * none (src/sdk/csat-settings.ts), and the widget asks that one in the customer's language.
 */
const ownQuestion = (question: string | undefined): string | null => (question && question !== en["widget.rating_question"] ? question : null);

export function feedbackPrompts(ctx: FeedbackContext) {
  const { t } = ctx.texts;
  const path = (what: string) => `/api/sdk/conversations/${encodeURIComponent(ctx.state.sessionId ?? "")}/${what}`;
  return {
    /** Appends "Did that help?" to an answer the AI completed. */
    afterAnswer(reply: HTMLElement) {
      if (!ctx.state.sessionId) return;
      const box = h("div", { class: "feedback", role: "group", "aria-label": t("widget.did_it_help") }, h("span", {}, `${t("widget.did_it_help")} `));
      const yes = h("button", { type: "button", class: "secondary" }, t("widget.yes"));
      const no = h("button", { type: "button", class: "secondary" }, t("widget.no"));
      box.append(yes, " ", no);
      const answer = async (helpful: boolean) => {
        yes.disabled = no.disabled = true;
        try {
          await ctx.post(path("feedback"), { helpful, ...ctx.who() });
        } catch {
          // A lost answer to a question nobody must answer: nothing to retry.
        }
        box.replaceChildren(h("span", { role: "status" }, helpful ? t("widget.feedback_thanks") : `${t("widget.feedback_sorry")} `));
        if (!helpful) {
          const person = h("button", { type: "button", class: "secondary" }, ctx.liveHelpLabel());
          person.addEventListener("click", () => ctx.askPerson());
          box.append(person);
        }
      };
      yes.addEventListener("click", () => void answer(true));
      no.addEventListener("click", () => void answer(false));
      reply.after(box);
      // The row comes after the log was scrolled to the answer: keep it in view, not under the bar below the log.
      const log = reply.parentElement;
      if (log) log.scrollTop = log.scrollHeight;
    },
    /** Asks for a rating of a resolved ticket, in the log. */
    rate,
    /** After a reload: the prompt again, if one was pending (neither answered nor dismissed). */
    restore(log: HTMLElement) {
      const pending = ctx.state.rating;
      if (pending && !pending.dismissed) void rate(log, pending.ticket);
    },
  };

  async function rate(log: HTMLElement, ticket: number) {
    // Whether to ask (CSAT on, the ticket resolved and not rated yet), and the org's question.
    const query = new URLSearchParams(Object.entries(ctx.who()).map(([k, v]) => [k, String(v)])).toString();
    const res = await fetch(`${ctx.base}${path("rating")}${query ? `?${query}` : ""}`, { headers: { Authorization: `Bearer ${ctx.key}` } }).catch(() => null);
    const csat = ((await res?.json().catch(() => null)) ?? {}) as { ask?: boolean; question?: string };
    if (res?.ok && csat.ask === false && ctx.state.rating?.ticket === ticket) remember(null);
    if (!res?.ok || csat.ask !== true) return;
    if (ctx.state.rating?.ticket !== ticket || ctx.state.rating.dismissed) remember({ ticket });
    log.querySelector(`form.rating[data-ticket="${ticket}"]`)?.remove();
    const form = h("form", { class: "rating", "aria-label": t("widget.rate_ticket", { number: ticket }), "data-ticket": String(ticket) });
    const fieldset = h("fieldset", {}, h("legend", {}, ownQuestion(csat.question) ?? t("widget.rating_question")));
    for (const n of [1, 2, 3, 4, 5]) {
      const id = `sa-rate-${ticket}-${n}`;
      fieldset.append(h("input", { type: "radio", name: "score", value: String(n), id, required: "" }), h("label", { for: id }, ` ${n} `));
    }
    const comment = h("textarea", {
      name: "comment",
      rows: "2",
      maxlength: "2000",
      "aria-label": t("widget.rating_comment"),
      placeholder: t("widget.rating_comment"),
    });
    const send = h("button", { type: "submit" }, t("widget.rating_send"));
    const later = h("button", { type: "button", class: "secondary" }, t("widget.rating_later"));
    form.append(fieldset, comment, send, " ", later);
    later.addEventListener("click", () => {
      remember({ ticket, dismissed: true });
      form.remove();
      ctx.input.focus();
    });
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const score = Number((form.querySelector("input[name=score]:checked") as HTMLInputElement | null)?.value);
      if (!score) return;
      send.disabled = true;
      let text = t("widget.rating_thanks");
      try {
        await ctx.post(path("rating"), { score, ...(comment.value.trim() ? { comment: comment.value.trim() } : {}), ...ctx.who() });
        remember(null);
      } catch {
        text = t("widget.rating_failed");
      }
      form.replaceChildren(h("p", { role: "status" }, text));
    });
    log.append(form);
    log.scrollTop = log.scrollHeight;
  }

  function remember(rating: Stored["rating"]) {
    ctx.state.rating = rating;
    ctx.save();
  }
}
