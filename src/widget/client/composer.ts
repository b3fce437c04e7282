// The composer: the text box (Enter sends, Shift+Enter a new line), "talk to a person", and the
// retry of a failed reply.
import type { AnswerListener, Mode } from "./answer.ts";
import { liveHelpLabel, type Widget } from "./context.ts";
import type { Thread } from "./thread.ts";

export interface Composer {
  /** Sends a customer message; false when it was not sent (empty, an answer under way, or a 429 wait). */
  submit(text: string, mode: Mode, listener?: AnswerListener): boolean;
  /** Retry: resend the customer message the failed reply at `index` answered. */
  retryAt(index: number): void;
}

export function createComposer(w: Widget, thread: Thread, ask: (message: string, mode: Mode, listener?: AnswerListener) => Promise<void>): Composer {
  const { state } = w;
  const { form, input, person } = w.shell;
  const submit = (text: string, mode: Mode, listener?: AnswerListener): boolean => {
    const message = text.trim();
    if (!message || thread.busy()) return false;
    if (thread.holding()) return false;
    state.messages.push({ role: "user", text: message, ...(mode === "livehelp" ? { livehelp: true } : {}) });
    w.save();
    w.emit("message", { role: "user", text: message, session_id: state.sessionId });
    void ask(message, mode, listener);
    return true;
  };
  const retryAt = (index: number) => {
    if (thread.holding()) return;
    const question = [...state.messages.slice(0, index)].reverse().find((m) => m.role === "user");
    state.messages.splice(index, 1);
    if (question) void ask(question.text, question.livehelp ? "livehelp" : "chat").then(() => input.focus());
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (submit(input.value, "chat")) input.value = "";
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  person.addEventListener("click", () => submit(liveHelpLabel(w), "livehelp"));
  return { submit, retryAt };
}
