// The writes of a new session's first turn (src/agents/first-turn-writes.ts): one write with the
// reply; or the session and question first — when a step names them, or once the answer has run
// QUESTION_STORED_WITHIN_MS — and the reply after; a follow-up in this process waits until the
// session is in the database.
import { describe, expect, test } from "bun:test";
import { plannedWrites, QUESTION_STORED_WITHIN_MS } from "../../src/agents/first-turn-writes.ts";
import { createChatState, repliesWritten, sessionKey } from "../../src/agents/reply-order.ts";
import { planSession } from "../../src/conversations/first-turn.ts";
import type { Reply } from "../../src/conversations/transcript.ts";

const REPLY: Reply = { text: "Hello", agentId: crypto.randomUUID(), actions: [], sources: [], confidence: 1, routing: null, status: "complete" };

function setup(atOnce = false) {
  const log: string[] = [];
  let clock = 0;
  const deadlines: { at: number; controller: AbortController }[] = [];
  const timers = {
    deadline(ms: number) {
      const controller = new AbortController();
      deadlines.push({ at: clock + ms, controller });
      return controller.signal;
    },
  };
  const advance = (ms: number) => {
    clock += ms;
    for (const d of deadlines) if (d.at <= clock) d.controller.abort();
  };
  const gate = Promise.withResolvers<void>();
  let held = false;
  const sessions = {
    async insertPlanned(_plan: unknown, reply: Reply | null) {
      log.push(reply ? "session+message+reply" : "session+message");
      if (held) await gate.promise;
    },
    async storeReply() {
      log.push("reply");
    },
  } as never;
  const pending = createChatState();
  const plan = planSession(
    { now: () => new Date() },
    {
      orgId: crypto.randomUUID(),
      party: { endUserId: null },
      agentId: REPLY.agentId,
      mode: "chat",
      firstMessage: { text: "hi", images: [], mode: "chat" },
    },
  );
  const writes = plannedWrites({ sessions, pending, timers }, plan, atOnce);
  return { log, advance, writes, pending, plan, deadlines, hold: () => (held = true), release: () => gate.resolve() };
}

describe("a new session's first turn", () => {
  test("a quick answer: one write, the session, its question and the reply", async () => {
    const { log, writes, advance } = setup();
    advance(QUESTION_STORED_WITHIN_MS - 1);
    await writes.store(REPLY);
    writes.release();
    advance(QUESTION_STORED_WITHIN_MS);
    expect(log).toEqual(["session+message+reply"]);
  });

  test("an answer still running at QUESTION_STORED_WITHIN_MS: the question is written then, the reply after", async () => {
    const { log, writes, advance } = setup();
    advance(QUESTION_STORED_WITHIN_MS);
    expect(log).toEqual(["session+message"]);
    await writes.store(REPLY);
    expect(log).toEqual(["session+message", "reply"]);
  });

  test("a ticket or a tool names the session: written first, once, however often it is asked", async () => {
    const { log, writes, advance } = setup();
    await Promise.all([writes.persisted(), writes.persisted()]);
    advance(QUESTION_STORED_WITHIN_MS);
    await writes.persisted();
    await writes.store(REPLY);
    expect(log).toEqual(["session+message", "reply"]);
  });

  test("a streamed turn: the session and question are written at once, no deadline armed, the reply after", async () => {
    const { log, writes, deadlines } = setup(true);
    expect(log).toEqual(["session+message"]);
    expect(deadlines).toEqual([]);
    await writes.persisted();
    await writes.store(REPLY);
    expect(log).toEqual(["session+message", "reply"]);
  });

  test("a turn that ends before its answer writes nothing, and holds up no follow-up", async () => {
    const { log, writes, advance, pending, plan } = setup();
    writes.release();
    advance(QUESTION_STORED_WITHIN_MS);
    await repliesWritten(pending, sessionKey(plan.sessionId));
    expect(log).toEqual([]);
  });

  test("a follow-up in this process waits until the session is in the database", async () => {
    const { writes, pending, plan, hold, release } = setup();
    hold();
    const stored = writes.store(REPLY);
    let followed = false;
    const follow = repliesWritten(pending, sessionKey(plan.sessionId)).then(() => (followed = true));
    await Bun.sleep(5);
    expect(followed).toBe(false);
    release();
    await stored;
    await follow;
    expect(followed).toBe(true);
  });
});
