// At hand-off, an anonymous visitor may leave an email address so a person's reply still reaches
// them once the tab is closed (README "Live conversation"). Shown under the waiting line while a
// ticket waits and nobody identified the visitor; optional: "Skip" hides it for this ticket. The
// address is checked here (the browser's email check and the service's pattern) and again by the
// service (POST /api/sdk/conversations/{session_id}/contact), which stores it unverified.
import { h } from "./dom.ts";
import type { Widget } from "./context.ts";
import { post } from "./context.ts";

/** The service's pattern (src/sdk/contact-routes.ts): a local part, `@`, a domain of two labels or more. */
const EMAIL = /^[^\s@\x00-\x1f\x7f]+@[^\s@.\x00-\x1f\x7f]+(\.[^\s@.\x00-\x1f\x7f]+)+$/;
const MAX = 320;

/** `answered`: called once the prompt is answered (the waiting line then says "and by email"). */
export function contactPrompt(w: Widget, after: HTMLElement, answered: () => void = () => {}) {
  const { state } = w;
  const input = h("input", {
    type: "email",
    id: "svc-contact",
    name: "email",
    autocomplete: "email",
    inputmode: "email",
    maxlength: String(MAX),
    "aria-describedby": "svc-contact-hint svc-contact-error",
  });
  const error = h("p", { class: "contact-error", id: "svc-contact-error", role: "alert" });
  const send = h("button", { type: "submit" });
  const skip = h("button", { type: "button", class: "secondary" });
  const label = h("label", { for: "svc-contact" });
  const hint = h("p", { class: "contact-hint", id: "svc-contact-hint" });
  const form = h("form", { class: "contact", novalidate: "", hidden: "" }, label, hint, h("div", { class: "contact-row" }, input, send, skip), error);
  const { t } = w.texts;
  w.texts.bind(() => {
    send.textContent = t("widget.contact_save");
    skip.textContent = t("widget.contact_skip");
    form.setAttribute("aria-label", t("widget.contact_group"));
    label.textContent = t("widget.contact_label");
    hint.textContent = t("widget.contact_hint");
  });
  after.after(form);

  const done = (email: string | null) => {
    state.contact = { ticket: state.waiting!.ticket, email };
    w.save();
    form.hidden = true;
    w.shell.status.textContent = email ? t("widget.contact_thanks", { email }) : "";
    update();
    answered();
  };
  // The prompt and its error take height from the log: keep the newest message in view.
  const keepInView = () => (w.shell.log.scrollTop = w.shell.log.scrollHeight);
  const refuse = (message: string) => {
    error.textContent = message;
    keepInView();
    input.setAttribute("aria-invalid", "true");
    input.focus();
  };

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const email = input.value.trim();
    if (!email) return refuse(t("widget.contact_empty"));
    if (email.length > MAX || !input.checkValidity() || !EMAIL.test(email)) return refuse(t("widget.contact_invalid"));
    send.disabled = skip.disabled = true;
    try {
      const answer = await post(w, `/api/sdk/conversations/${encodeURIComponent(state.sessionId ?? "")}/contact`, { email });
      done(String(answer.email ?? email));
    } catch (err) {
      const status = (err as { status?: number }).status;
      refuse(status === 400 ? t("widget.contact_invalid") : t("widget.contact_failed"));
    } finally {
      send.disabled = skip.disabled = false;
    }
  });
  skip.addEventListener("click", () => done(null));
  input.addEventListener("input", () => {
    if (!error.textContent) return;
    error.textContent = "";
    input.removeAttribute("aria-invalid");
  });

  /** Shows the prompt while a ticket waits for a person, the visitor is anonymous and has not answered it for this ticket. */
  function update() {
    const waiting = state.live ? state.waiting : null;
    const ask = Boolean(waiting && state.sessionId && !w.identity && state.userId === null && state.contact?.ticket !== waiting.ticket);
    if (form.hidden === ask) {
      form.hidden = !ask;
      keepInView();
    }
  }
  return { update };
}
