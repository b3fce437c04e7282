// The round trips of one chat turn (docs/performance.md "Round trips of a chat turn"): counted where
// statements leave the process (src/db/observe.ts), on the engine of the run. On the common path
// — a warm instance (widget key, org settings, tool snapshot and knowledge index cached; the rate
// limiter's lease in hand) — a new session's turn is one statement that stores the session, the
// customer's message and the reply; a known session's, one
// statement that stores the message and reads what the turn needs, and one that stores the reply:
// at most TURN_STATEMENTS statements, no transaction. The org settings cache (src/agents/turn-settings.ts) is dropped by a change, here
// at once and on another instance through NOTIFY.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { updateAgent } from "../../src/agents/service.ts";
import { setOrgLlm } from "../../src/agents/llm-settings.ts";
import { transcriptsSettled } from "../../src/agents/turn.ts";
import { agentOf, createTurnSettings } from "../../src/agents/turn-settings.ts";
import type { DbEvent } from "../../src/db/observe.ts";
import type { Actor } from "../../src/kit/actor.ts";
import { agents, conversationMessages, docs } from "../../src/db/schema/index.ts";
import { createInvalidation } from "../../src/invalidation.ts";
import { CHANGE_QUIET_MS } from "../../src/knowledge/state-cache.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { chat, type ChatOrg, seedChatOrg } from "../support/chat.ts";

/** The documented bound (docs/performance.md): statements of one chat turn on the common path. */
const TURN_STATEMENTS = 2;
/** A new session's turn: its one write. */
const NEW_SESSION_STATEMENTS = 1;
const SINKS = ["/api/sdk/chat", "/api/sdk/chat/stream"] as const;

let app: TestApp;
let org: ChatOrg;
let counting = false;
const seen: DbEvent[] = [];

beforeAll(async () => {
  // Limits high enough that one lease serves every request after the first (as the bench runs).
  app = await createTestApp(
    { SDK_RATE_LIMIT_PER_KEY_IP_PER_MINUTE: "100000000", SDK_RATE_LIMIT_PER_ORG_PER_MINUTE: "100000000" },
    { observe: (event) => counting && seen.push(event) },
  );
  let announced = 0;
  app.deps.invalidation.subscribe("knowledge", () => announced++);
  org = await seedChatOrg(app);
  // The seeded documents were changes, each announced at its commit (src/knowledge/state-cache.ts):
  // once every announcement is in and the quiet period after it is over, the state is cached.
  const seeded = (await app.deps.db.select({ id: docs.id }).from(docs).where(eq(docs.orgId, org.org_id))).length;
  for (let i = 0; i < 500 && announced < seeded; i++) await Bun.sleep(10);
  expect(announced).toBe(seeded);
  app.clock.advance(CHANGE_QUIET_MS);
}, 30_000);
afterAll(() => app.close());

/** One turn, its reply stored; what it sent to the database. */
async function turn(path: string, body: Record<string, unknown>) {
  seen.length = 0;
  counting = true;
  const res = await chat(app, org, body, path);
  expect(res.status).toBe(200);
  const text = await res.text();
  await transcriptsSettled(app.deps);
  counting = false;
  const sessionId = path.endsWith("/stream") ? res.headers.get("x-session-id")! : (JSON.parse(text) as { session_id: string }).session_id;
  return {
    sessionId,
    statements: seen.filter((e) => e.kind === "statement").length,
    transactions: seen.filter((e) => e.kind === "transaction").length,
    writes: seen.filter((e) => e.kind === "statement" && /\b(insert|update|delete)\b/i.test(e.sql)).length,
  };
}

describe("one chat turn", () => {
  test.each(SINKS)("%s: a new session and a known one, each in at most two statements and no transaction", async (path) => {
    await turn(path, { message: "warm up" }); // the caches and the rate limiter's lease
    const first = await turn(path, { message: "How do I reset my password?" });
    // A new session: the session, the message and the reply in one write (src/conversations/first-turn.ts)
    // — a stream's headers acknowledge the session, so there it is written before them and the reply after;
    // the knowledge state is this process's cached copy (src/knowledge/state-cache.ts).
    const newSession = path.endsWith("/stream") ? { statements: TURN_STATEMENTS, writes: 2 } : { statements: NEW_SESSION_STATEMENTS, writes: 1 };
    expect(first).toMatchObject({ ...newSession, transactions: 0 });
    const next = await turn(path, { message: "And my invoices?", session_id: first.sessionId });
    expect(next).toMatchObject({ sessionId: first.sessionId, statements: TURN_STATEMENTS, transactions: 0, writes: 2 });
    // Both turns are whole in the transcript: the second saw the first as its history.
    const [session] = await app.deps.db
      .select({ id: conversationMessages.conversationId })
      .from(conversationMessages)
      .where(eq(conversationMessages.text, "And my invoices?"));
    const rows = await app.deps.db
      .select({ role: conversationMessages.role, text: conversationMessages.text })
      .from(conversationMessages)
      .where(and(eq(conversationMessages.orgId, org.org_id), eq(conversationMessages.conversationId, session!.id)))
      .orderBy(conversationMessages.createdAt, conversationMessages.id);
    expect(rows.map((r) => r.role)).toEqual(["customer", "agent", "customer", "agent"]);
    expect(rows[2]!.text).toBe("And my invoices?");
  });

  test("a session with a context to merge takes the general path: more statements, the same transcript", async () => {
    const first = await turn("/api/sdk/chat", { message: "How do I reset my password?" });
    const next = await turn("/api/sdk/chat", { message: "Thanks", session_id: first.sessionId, context: { page: { label: "Page", value: "/billing" } } });
    expect(next.statements).toBeGreaterThan(TURN_STATEMENTS);
  });
});

describe("the org settings a turn reads, cached", () => {
  test("a change is seen here at once and by another instance through NOTIFY", async () => {
    const other = createInvalidation({ db: app.deps.db, log: app.deps.log, listen: app.database.listen });
    await other.start();
    const elsewhere = createTurnSettings(app.deps, other);
    const [active] = await app.deps.db
      .select()
      .from(agents)
      .where(and(eq(agents.orgId, org.org_id), eq(agents.status, "active")));
    expect(agentOf(await elsewhere.get(org.org_id))?.instructions).toBe(active!.instructions);
    await chat(app, org, { message: "hello" }).then((r) => r.text()); // this instance's cache loaded too

    const actor: Actor = { kind: "system", name: "test" };
    await updateAgent(app.deps, org.org_id, actor, active!.id, { instructions: "Answer in one sentence." });
    const eventually = async (check: () => Promise<boolean>) => {
      for (let i = 0; i < 100; i++)
        if (await check()) return true;
        else await Bun.sleep(50);
      return false;
    };
    expect(await eventually(async () => agentOf(await elsewhere.get(org.org_id))?.instructions === "Answer in one sentence.")).toBe(true);

    await setOrgLlm(app.deps, org.org_id, actor, { provider: "builtin" });
    expect(await eventually(async () => (await elsewhere.get(org.org_id)).llm?.provider === "builtin")).toBe(true);
    await other.stop();
  });
});
