// One answer: the customer's message is posted to /api/sdk/chat/stream and the reply streams into
// the last message of the thread; its actions (sources, tickets, hand-off) are told as notes.
import { richText, sourceList } from "./dom.ts";
import type { Json, StoredMessage } from "./store.ts";
import { describeAction } from "./live.ts";
import { readChatStream } from "./stream.ts";
import { jsonHeaders, who, type Widget } from "./context.ts";
import type { Thread } from "./thread.ts";

export type Mode = "chat" | "livehelp" | "voice" | "video";

/** Follows one answer as it streams (voice speaks it sentence by sentence: ./voice.ts). */
export interface AnswerListener {
  text(piece: string): void;
  /** Once, when the answer ended: complete or not, with the note the customer was shown if it failed. */
  end(complete: boolean, failure: string | null): void;
}
type Ended = "complete" | "error" | "dropped";

interface Outcome {
  ended: Ended;
  errorMessage: string;
  actions: Json[];
}

export interface AnswerDeps {
  thread: Thread;
  /** Starts following the live conversation when a person is involved. */
  follow(): void;
  unfollow(): void;
  /** An answer the AI completed without opening a ticket: "Did that help?" goes under it. */
  answered?(replyEl: HTMLElement): void;
}

/** POSTs the message; a 403 for a stored session (another customer's) starts afresh once. */
async function request(w: Widget, deps: AnswerDeps, message: string, mode: Mode): Promise<Response> {
  const { state } = w;
  const url = `${w.base}/api/sdk/chat/stream`;
  const context = w.chatContext ? { context: w.chatContext } : {};
  w.chatContext = null;
  let res = await fetch(url, {
    method: "POST",
    headers: jsonHeaders(w),
    body: JSON.stringify({ message, mode, ...who(w), ...context, ...(state.sessionId ? { session_id: state.sessionId } : {}) }),
  });
  if (res.status === 403 && state.sessionId) {
    // The stored session belongs to someone else now (another user on this browser): start afresh.
    state.sessionId = null;
    Object.assign(state, { live: false, lastEventId: null });
    deps.unfollow();
    res = await fetch(url, { method: "POST", headers: jsonHeaders(w), body: JSON.stringify({ message, mode, ...who(w), ...context }) });
  }
  return res;
}

/** Reads the stream into `reply` and its element, collecting the actions and how it ended. */
async function readAnswer(w: Widget, body: NonNullable<Response["body"]>, reply: StoredMessage, replyEl: HTMLElement, out: Outcome, listener?: AnswerListener) {
  const textEl = replyEl.querySelector(".text") as HTMLElement;
  await readChatStream(body, {
    text(piece) {
      reply.text += piece;
      if (piece) listener?.text(piece);
    },
    record(record) {
      if (record.startsWith("__ACTION__")) {
        const action = JSON.parse(record.slice(10)) as Json;
        out.actions.push(action);
        if (action.type === "ticket_created" || action.type === "ticket_updated" || action.type === "handoff") w.emit("routed", action);
        if (action.type === "sources" && Array.isArray(action.sources)) {
          reply.sources = (action.sources as Json[])
            .filter((x) => typeof x.title === "string")
            .map((x) => ({ title: x.title as string, url: typeof x.url === "string" ? x.url : null }));
          if (reply.sources.length) replyEl.append(sourceList(reply.sources));
        }
      } else if (record.startsWith("__ACTIONS__")) out.ended = "complete";
      else if (record.startsWith("__ERROR__")) {
        out.ended = "error";
        out.errorMessage = ((JSON.parse(record.slice(9)) as Json).message as string) ?? out.errorMessage;
      }
    },
    chunk() {
      textEl.replaceChildren(richText(reply.text));
      w.shell.log.scrollTop = w.shell.log.scrollHeight;
    },
  });
}

/** After the stream: an empty reply goes, a failure becomes a note with a retry, actions are told. */
function finish(w: Widget, deps: AnswerDeps, reply: StoredMessage, replyEl: HTMLElement, out: Outcome) {
  const { state } = w;
  replyEl.classList.remove("streaming");
  // No text: a cut before the first word, or the AI staying quiet while a person owns the conversation.
  if (!reply.text) deps.thread.drop(reply, replyEl);
  if (out.ended !== "complete") state.messages.push({ role: "note", text: out.errorMessage, failed: true });
  for (const action of out.actions) {
    const told = describeAction(action);
    if (told.note) state.messages.push({ role: "note", text: told.note });
    if (told.status) w.shell.status.textContent = told.status;
    if (action.type === "ticket_created" || action.type === "ticket_updated") state.live = true;
    deps.thread.waiting.seen(action);
  }
  deps.follow();
  w.save();
  deps.thread.setBusy(false);
  deps.thread.render();
  if (out.ended === "complete") w.emit("message", { role: "agent", text: reply.text, actions: out.actions, session_id: state.sessionId });
  if (out.ended === "complete" && reply.text && !out.actions.some((a) => String(a.type).startsWith("ticket_"))) deps.answered?.(replyEl);
}

/** Streams one answer into the last message. Resolves when the stream ended, one way or another. */
export function createAsk(w: Widget, deps: AnswerDeps) {
  const { thread } = deps;
  return async (message: string, mode: Mode, listener?: AnswerListener) => {
    if (thread.busy() || thread.holding()) return listener?.end(false, null);
    thread.setBusy(true);
    w.shell.status.textContent = "";
    const reply: StoredMessage = { role: "agent", text: "" };
    w.state.messages.push(reply);
    thread.render();
    const replyEl = w.shell.log.lastElementChild as HTMLElement;
    replyEl.classList.add("streaming");
    const out: Outcome = { ended: "dropped", errorMessage: "The answer was interrupted.", actions: [] };
    try {
      const res = await request(w, deps, message, mode);
      if (res.status === 429) {
        const seconds = Math.max(1, Number(res.headers.get("Retry-After")) || 30);
        thread.waitFor(seconds);
        out.ended = "error";
        out.errorMessage = `We're receiving a lot of messages right now. Please wait ${seconds} seconds, then try again.`;
        return;
      }
      if (!res.ok || !res.body) {
        const json = (await res.json().catch(() => ({}))) as Json;
        out.ended = "error";
        out.errorMessage = ((json.error as Json | undefined)?.message as string) ?? "Something went wrong.";
        return;
      }
      w.state.sessionId = res.headers.get("X-Session-Id") ?? w.state.sessionId;
      w.save();
      await readAnswer(w, res.body, reply, replyEl, out, listener);
    } catch {
      out.ended = out.ended === "complete" ? out.ended : "dropped";
      out.errorMessage = "The connection was lost.";
    } finally {
      finish(w, deps, reply, replyEl, out);
      listener?.end(out.ended === "complete", out.ended === "complete" ? null : out.errorMessage);
    }
  };
}
