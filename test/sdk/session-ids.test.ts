// A chat session id is a capability: whoever holds it continues an unverified visitor's chat as
// them. The widget's track() sends it with every event, so events keep the conversation it names,
// never the id — neither in the table nor in what GET /api/customers/{id} shows the team — and the
// migration that introduced this swapped the ids already stored for their conversations.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { queryRows } from "../../src/db/client.ts";
import { migrationFiles } from "../../src/db/migrations/index.ts";
import { conversations, customerEvents } from "../../src/db/schema/index.ts";
import { findEndUser } from "../../src/customers/records.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { sdk } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let call: ReturnType<typeof sdk>;
let admin: Record<string, string>;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  call = sdk(app, org.widget_key);
  admin = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
}, 30_000);
afterAll(() => app.close());

/** A real chat session of an unverified visitor: its id and the conversation it names. */
async function chatSession(userId: string): Promise<{ sessionId: string; conversationId: string }> {
  const res = await call("/api/sdk/chat", { message: "How do I reset my password?", user_id: userId });
  expect(res.status).toBe(200);
  const sessionId = (await res.json()).session_id as string;
  const [row] = await app.deps.db
    .select({ id: conversations.id })
    .from(conversations)
    .where(eq(conversations.sessionHash, sha256Hex(sessionId)));
  return { sessionId, conversationId: row!.id };
}

/** Every stored event of the org, each row as the database holds it (every column, as text). */
async function storedEvents(): Promise<string[]> {
  const rows = await queryRows<{ row: string }>(app.deps.db, sql`select row_to_json(e)::text as row from customer_events e where e.org_id = ${org.org_id}`);
  return rows.map((r) => r.row);
}

describe("events that carry a chat session id", () => {
  test("batch-level and per-event session ids: the row keeps the conversation, not the id; an unknown id links nothing", async () => {
    const { sessionId, conversationId } = await chatSession("visitor-1");
    const res = await call("/api/sdk/events", {
      user_id: "visitor-1",
      session_id: sessionId,
      events: [
        { name: "batch_session" },
        { name: "own_session", session_id: sessionId },
        { name: "unknown_session", session_id: "cs_not-a-session-of-this-org" },
      ],
    });
    expect(res.status).toBe(200);
    const rows = await storedEvents();
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).not.toContain(sessionId);
    const visitor = (await findEndUser(app.deps, org.org_id, "visitor-1"))!;
    const stored = await app.deps.db.select().from(customerEvents).where(eq(customerEvents.endUserId, visitor.id));
    expect(Object.fromEntries(stored.map((e) => [e.name, e.conversationId]))).toEqual({
      batch_session: conversationId,
      own_session: conversationId,
      unknown_session: null,
    });
  });

  test("GET /api/customers/{id} shows the conversation id and never the session id", async () => {
    const { sessionId, conversationId } = await chatSession("visitor-2");
    expect((await call("/api/sdk/events", { user_id: "visitor-2", session_id: sessionId, events: [{ name: "page_viewed" }] })).status).toBe(200);
    const visitor = (await findEndUser(app.deps, org.org_id, "visitor-2"))!;
    const res = await app.request(`/api/customers/${visitor.id}`, { headers: admin });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(sessionId);
    const events = JSON.parse(text).events as Record<string, unknown>[];
    expect(events.map((e) => [e.name, e.conversation_id, "session_id" in e])).toEqual([["page_viewed", conversationId, false]]);
  });
});

describe("the migration that swapped stored ids for conversations", () => {
  test("an event stored with a session id before it gets that session's conversation; the ids are gone", async () => {
    const { sessionId, conversationId } = await chatSession("visitor-3");
    const migration = migrationFiles.find((m) => m.tag.endsWith("_customer_events_conversation"))!;
    expect(migration).toBeDefined();
    // The table as it was before that migration, with rows as the old code stored them.
    await app.deps.db.execute(sql`alter table customer_events drop column conversation_id`);
    await app.deps.db.execute(sql`alter table customer_events add column session_id text`);
    await app.deps.db.execute(sql`delete from customer_events`);
    await app.deps.db.execute(
      sql`insert into customer_events (org_id, name, session_id, occurred_at) values (${org.org_id}, 'old_known', ${sessionId}, now()), (${org.org_id}, 'old_unknown', 'cs_never-issued', now()), (${org.org_id}, 'old_none', null, now())`,
    );
    for (const statement of migration.sql.split("--> statement-breakpoint").filter((s) => s.trim() !== "")) await app.deps.db.execute(sql.raw(statement));

    const rows = await storedEvents();
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).not.toContain(sessionId);
    const columns = await queryRows<{ column_name: string }>(
      app.deps.db,
      sql`select column_name from information_schema.columns where table_name = 'customer_events'`,
    );
    expect(columns.map((c) => c.column_name)).not.toContain("session_id");
    const stored = await app.deps.db.select().from(customerEvents).where(eq(customerEvents.orgId, org.org_id));
    expect(Object.fromEntries(stored.map((e) => [e.name, e.conversationId]))).toEqual({ old_known: conversationId, old_unknown: null, old_none: null });
  });
});
