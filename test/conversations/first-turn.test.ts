// A new session's first turn written in one statement (src/conversations/first-turn.ts) leaves
// exactly the rows the message-by-message writes leave (createSession, storeCustomerMessage,
// storeReply): the same counters and report facts, the same transcript — written with its reply
// at once, or first without it (a ticket or a tool named it, or the model took its time) and the
// reply after.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { insertPlanned, planSession } from "../../src/conversations/first-turn.ts";
import { type Conversation, createSession } from "../../src/conversations/sessions.ts";
import { type Reply, storeCustomerMessage, storeReply } from "../../src/conversations/transcript.ts";
import { conversationMessages, conversations } from "../../src/db/schema/index.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { type ChatOrg, seedChatOrg } from "../support/chat.ts";

let app: TestApp;
let org: ChatOrg;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedChatOrg(app);
}, 30_000);
afterAll(() => app.close());

const party = { endUserId: null };
const DOC = crypto.randomUUID();
const TICKET = crypto.randomUUID();
const reply = (over: Partial<Reply> = {}): Reply => ({
  text: "Choose Forgot password on the sign-in page.",
  agentId: org.agent_id,
  actions: [{ type: "sources", sources: [] }],
  sources: [{ doc_id: DOC, title: "Reset your password", url: null }],
  confidence: 0.8,
  routing: null,
  status: "complete",
  ...over,
});

/** The rows of one conversation without what differs by construction (ids, the session's hash). */
async function rowsOf(id: string) {
  const [row] = await app.deps.db.select().from(conversations).where(eq(conversations.id, id));
  const { id: _id, sessionHash: _hash, ...conversation } = row!;
  const messages = await app.deps.db
    .select()
    .from(conversationMessages)
    .where(eq(conversationMessages.conversationId, id))
    .orderBy(conversationMessages.createdAt, conversationMessages.id);
  return { conversation, messages: messages.map(({ id: _m, conversationId: _c, ...m }) => m) };
}

/** The same turn the long way: an empty session, then the message, then the reply (each its own write). */
async function theLongWay(text: string, answer: Reply | null): Promise<Conversation> {
  const { conversation } = await createSession(app.deps, { orgId: org.org_id, party, agentId: org.agent_id, mode: "chat", language: "en" });
  await storeCustomerMessage(app.deps, conversation, { text, images: [], mode: "chat" });
  if (answer) {
    app.clock.advance(1500);
    await storeReply(app.deps, conversation, answer);
  }
  return conversation;
}

/** A new session whose first message is `text`, planned as a turn plans it. */
const planned = (text: string) =>
  planSession(app.deps, { orgId: org.org_id, party, agentId: org.agent_id, mode: "chat", language: "en", firstMessage: { text, images: [], mode: "chat" } });

const CASES: [string, string, () => Reply | null][] = [
  ["a question and its answer", "How do I reset my password?", () => reply()],
  ["a greeting and its answer (not substantive)", "Hello!", () => reply({ text: "Hello! How can I help?" })],
  ["a failed answer", "How do I reset my password?", () => reply({ text: "Partial", status: "failed", error: { code: "llm_failed", message: "x" } })],
  ["an answer that opened a ticket", "I want a person", () => reply({ routing: { action: "escalate", ticket_id: TICKET }, ticketId: TICKET })],
  ["a question not answered yet", "Hello!", () => null],
];

describe("one statement, the same rows", () => {
  test.each(CASES)("%s", async (_name, text, answer) => {
    const started = app.clock.now;
    const long = await theLongWay(text, answer());
    app.clock.now = started;
    const plan = planned(text);
    app.clock.advance(answer() ? 1500 : 0);
    await insertPlanned(app.deps, plan, answer());
    expect(await rowsOf(plan.conversation.id)).toEqual(await rowsOf(long.id));
  });

  test("written first without the reply, then the reply as for any session: the same rows again", async () => {
    const started = app.clock.now;
    const long = await theLongWay("How do I reset my password?", reply());
    app.clock.now = started;
    const plan = planned("How do I reset my password?");
    await insertPlanned(app.deps, plan, null);
    app.clock.advance(1500);
    await storeReply(app.deps, plan.conversation, reply());
    expect(await rowsOf(plan.conversation.id)).toEqual(await rowsOf(long.id));
  });

  test("a context that is not free-form is refused before anything is planned", () => {
    expect(() =>
      planSession(app.deps, {
        orgId: org.org_id,
        party,
        agentId: org.agent_id,
        mode: "chat",
        context: { page: { label: "x".repeat(17 * 1024), value: 1 } }, // over the 16 KiB of a free-form value
        firstMessage: { text: "hi", images: [], mode: "chat" },
      }),
    ).toThrow("16");
  });
});
