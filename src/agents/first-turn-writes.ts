// The writes of a new session's first turn on the common path (docs/decisions.md "A new session's
// first turn"). The session is planned in memory (src/conversations/first-turn.ts) and written
// once, with the customer's message and the reply, when the answer is done — one commit where
// there were two. It is written earlier, without the reply, when any of these comes first:
//   * the answer is streamed: the stream's headers answer 200 with the session's id, and nothing
//     answered 2xx may be lost, so the session and its question are written as the turn starts,
//     beside retrieval and triage, and the headers wait for that write (src/agents/turn.ts);
//   * a step is about to name it elsewhere: a ticket, or a tool call (`persisted`);
//   * the answer is still running QUESTION_STORED_WITHIN_MS after the turn began: a model that
//     takes its time does not keep the customer's question out of the transcript (the inbox, a
//     database lost mid-answer) for longer than that. The write runs beside the answer; nothing
//     waits for it but the reply's own write.
// Until the session is in the database, the next turn of it in this process waits for it as for
// any reply still being written (reply-order.ts).
import type { PlannedSession } from "../conversations/first-turn.ts";
import type { Conversation } from "../conversations/sessions.ts";
import type { Reply } from "../conversations/transcript.ts";
import type { Timers } from "../kit/timers.ts";
import { writeReply } from "./reply-order.ts";
import type { TurnPorts } from "./turn-ports.ts";

/** How long an answer may run before its new session and question are written without waiting for the reply. */
export const QUESTION_STORED_WITHIN_MS = 200;

export interface TurnWrites {
  /** Resolves once the conversation and the customer's message are in the database (writing them now if they are not). */
  persisted(): Promise<void>;
  /** Stores the reply (with the session and message when they are not written yet). */
  store(reply: Reply): Promise<void>;
  /** The turn is over, whatever happened: nothing more is written for it. */
  release(): void;
}

/**
 * `atOnce`: the session and question are written now (a stream's headers wait for them), so no
 * deadline is armed; otherwise they wait for the reply, a step naming them, or the deadline.
 */
export function plannedWrites(
  ports: Pick<TurnPorts, "sessions" | "pending"> & { timers: Pick<Timers, "deadline"> },
  plan: PlannedSession,
  atOnce = false,
): TurnWrites {
  const { conversation, sessionId } = plan;
  const inDatabase = Promise.withResolvers<void>();
  void writeReply(ports.pending, conversation, sessionId, () => inDatabase.promise);
  let written: Promise<void> | null = null;
  const persisted = () => (written ??= ports.sessions.insertPlanned(plan, null).finally(() => inDatabase.resolve()));
  // A failure here surfaces at the reply's write, which waits for this one.
  const onDue = () => void persisted().catch(() => {});
  const due = atOnce ? null : ports.timers.deadline(QUESTION_STORED_WITHIN_MS);
  due?.addEventListener("abort", onDue, { once: true });
  if (atOnce) onDue();
  return {
    persisted,
    async store(reply) {
      due?.removeEventListener("abort", onDue);
      if (written === null) {
        written = ports.sessions.insertPlanned(plan, reply).finally(() => inDatabase.resolve());
        return written;
      }
      await written;
      await writeReply(ports.pending, conversation, sessionId, () => ports.sessions.storeReply(conversation, reply));
    },
    release() {
      due?.removeEventListener("abort", onDue);
      inDatabase.resolve();
    },
  };
}

/** A session already in the database: the reply is its only write, after any other still being written. */
export function knownWrites(ports: Pick<TurnPorts, "sessions" | "pending">, conversation: Conversation, sessionId: string): TurnWrites {
  return {
    persisted: () => Promise.resolve(),
    store: (reply) => writeReply(ports.pending, conversation, sessionId, () => ports.sessions.storeReply(conversation, reply)),
    release() {},
  };
}
