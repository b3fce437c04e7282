// Tickets as a service (contract used by the widget SDK and the chat pipeline): numbering under
// concurrency, the thread, status side effects of messages, history, limits at their boundary,
// and the customer-visible thread that never carries notes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { ticketHistory, ticketMessages, tickets } from "../../src/db/schema/index.ts";
import { AppError } from "../../src/errors.ts";
import {
  addTicketMessage,
  createTicket,
  customerThread,
  findTicket,
  listTickets,
  TICKET_LIMITS,
  ticketHistoryOf,
  ticketThread,
  updateTicket,
} from "../../src/inbox/tickets.ts";
import { openPostgres } from "../../src/db/client.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { engine } from "../support/db.ts";
import { type InboxOrg, seedCustomer, seedInboxOrg } from "./helpers.ts";

let app: TestApp;
let org: InboxOrg;
let other: InboxOrg;
let customerId: string;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedInboxOrg(app);
  other = await seedInboxOrg(app);
  customerId = (await seedCustomer(app, org.org_id, { externalId: "cust-1", email: "ada@example.com", name: "Ada" })).id;
}, 30_000);
afterAll(() => app.close());

const customer = { kind: "customer" as const, endUserId: null, sessionId: "s" };
const member = () => ({ kind: "member" as const, memberId: org.admin_id });

async function rejects(promise: Promise<unknown>, status: number, path?: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).status).toBe(status);
  if (path) expect((error as AppError).details?.[0]?.path).toBe(path);
}

describe("createTicket", () => {
  test("stores the ticket, its first customer message and a created entry", async () => {
    const view = await createTicket(app.deps, {
      orgId: org.org_id,
      actor: customer,
      input: {
        subject: "  Card declined ",
        message: "My card was declined.",
        customerId,
        source: "widget",
        priority: "high",
        verified: true,
        customFields: { plan: "pro" },
      },
    });
    expect(view).toMatchObject({
      subject: "Card declined",
      status: "open",
      priority: "high",
      source: "widget",
      customer_id: customerId,
      verified: true,
      custom_fields: { plan: "pro" },
    });
    expect(view.number).toBeGreaterThan(0);
    const ticket = (await findTicket(app.deps, org.org_id, view.id))!;
    expect((await findTicket(app.deps, org.org_id, `#${view.number}`))!.id).toBe(view.id);
    const thread = await ticketThread(app.deps, ticket);
    expect(thread).toHaveLength(1);
    expect(thread[0]).toMatchObject({ kind: "customer", body: "My card was declined.", authorKind: "customer", verified: true });
    const history = await ticketHistoryOf(app.deps, ticket);
    expect(history.map((h) => h.action)).toEqual(["created"]);
    expect(history[0]!.actorKind).toBe("customer");
  }, 20_000);

  test("numbers are per org, from 1, and unique under concurrent creation", async () => {
    const fresh = await seedInboxOrg(app);
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        createTicket(app.deps, { orgId: fresh.org_id, actor: customer, input: { subject: `s${i}`, message: "m", source: "api" } }),
      ),
    );
    expect(created.map((t) => t.number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const elsewhere = await createTicket(app.deps, { orgId: other.org_id, actor: customer, input: { subject: "s", message: "m", source: "api" } });
    expect(elsewhere.number).toBe(1);
  }, 20_000);

  test.skipIf(engine !== "postgres")(
    "two independent connection pools (two instances) on one PostgreSQL never hand out the same number",
    async () => {
      const fresh = await seedInboxOrg(app);
      const second = openPostgres(app.database.url!, { max: 4 });
      try {
        const other = { ...app.deps, db: second.db };
        const created = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            createTicket(i % 2 ? other : app.deps, { orgId: fresh.org_id, actor: customer, input: { subject: `p${i}`, message: "m", source: "api" } }),
          ),
        );
        expect(created.map((t) => t.number).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      } finally {
        await second.close();
      }
    },
    20_000,
  );

  test(`limits: subject ${TICKET_LIMITS.subject} and message ${TICKET_LIMITS.body} characters pass; one more is 400`, async () => {
    const base = { subject: "s", message: "m", source: "api" as const };
    const ok = await createTicket(app.deps, {
      orgId: org.org_id,
      actor: customer,
      input: { ...base, subject: "s".repeat(TICKET_LIMITS.subject), message: "m".repeat(TICKET_LIMITS.body) },
    });
    expect(ok.subject).toHaveLength(TICKET_LIMITS.subject);
    await rejects(
      createTicket(app.deps, { orgId: org.org_id, actor: customer, input: { ...base, subject: "s".repeat(TICKET_LIMITS.subject + 1) } }),
      400,
      "/subject",
    );
    await rejects(
      createTicket(app.deps, { orgId: org.org_id, actor: customer, input: { ...base, message: "m".repeat(TICKET_LIMITS.body + 1) } }),
      400,
      "/message",
    );
    await rejects(createTicket(app.deps, { orgId: org.org_id, actor: customer, input: { ...base, subject: "   " } }), 400, "/subject");
    await rejects(createTicket(app.deps, { orgId: org.org_id, actor: customer, input: { ...base, message: "nul \u0000 here" } }), 400, "/message");
    // A caller that cut text short mid-pair gets U+FFFD stored, not a refusal.
    const cut = await createTicket(app.deps, { orgId: org.org_id, actor: customer, input: { ...base, message: "cut \ud83d" } });
    expect((await ticketThread(app.deps, (await findTicket(app.deps, org.org_id, cut.id))!))[0]!.body).toBe("cut \ufffd");
    await rejects(createTicket(app.deps, { orgId: org.org_id, actor: customer, input: { ...base, priority: "asap" as never } }), 400, "/priority");
    await rejects(createTicket(app.deps, { orgId: org.org_id, actor: customer, input: { ...base, conversationId: "nope" } }), 400, "/conversation_id");
    const fields = Object.fromEntries(Array.from({ length: TICKET_LIMITS.customFieldKeys }, (_, i) => [`k${i}`, i]));
    await createTicket(app.deps, { orgId: org.org_id, actor: customer, input: { ...base, customFields: fields } });
    await rejects(
      createTicket(app.deps, { orgId: org.org_id, actor: customer, input: { ...base, customFields: { ...fields, extra: 1 } } }),
      400,
      "/custom_fields",
    );
    await rejects(
      createTicket(app.deps, { orgId: org.org_id, actor: customer, input: { ...base, customFields: { a: "x".repeat(TICKET_LIMITS.customFieldsBytes) } } }),
      400,
      "/custom_fields",
    );
  }, 20_000);

  test("a customer of another org is refused, and nothing is stored", async () => {
    const before = (await app.deps.db.select().from(tickets).where(eq(tickets.orgId, other.org_id))).length;
    await rejects(createTicket(app.deps, { orgId: other.org_id, actor: customer, input: { subject: "s", message: "m", source: "api", customerId } }), 404);
    expect((await app.deps.db.select().from(tickets).where(eq(tickets.orgId, other.org_id))).length).toBe(before);
  }, 20_000);
});

describe("messages and triage", () => {
  test("replies, notes and customer messages; a customer message reopens a pending ticket; closed takes notes only", async () => {
    const view = await createTicket(app.deps, {
      orgId: org.org_id,
      actor: customer,
      input: { subject: "Login", message: "Cannot log in", customerId, source: "widget" },
    });
    await addTicketMessage(app.deps, { orgId: org.org_id, actor: member(), ticketId: view.id, kind: "reply", body: "Try resetting your password." });
    await addTicketMessage(app.deps, {
      orgId: org.org_id,
      actor: member(),
      ticketId: view.id,
      kind: "note",
      body: "Internal: account flagged for fraud review.",
    });
    await addTicketMessage(app.deps, { orgId: org.org_id, actor: { kind: "agent", agentId: null }, ticketId: view.id, kind: "reply", body: "An AI answer." });
    expect((await updateTicket(app.deps, { orgId: org.org_id, actor: member(), ticketId: view.id, patch: { status: "pending" } })).status).toBe("pending");
    await addTicketMessage(app.deps, { orgId: org.org_id, actor: customer, ticketId: view.id, kind: "customer", body: "Still broken", verified: false });
    const ticket = (await findTicket(app.deps, org.org_id, view.id))!;
    expect(ticket.status).toBe("open");

    const visible = await customerThread(app.deps, org.org_id, view.id);
    expect(visible.map((m) => m.from)).toEqual(["customer", "team", "ai_agent", "customer"]);
    expect(JSON.stringify(visible)).not.toContain("fraud review");
    expect(JSON.stringify(visible)).not.toContain(org.admin_id);
    expect((await ticketThread(app.deps, ticket)).map((m) => m.kind)).toEqual(["customer", "reply", "note", "reply", "customer"]);
    // Another org never sees the thread.
    expect(await customerThread(app.deps, other.org_id, view.id)).toEqual([]);

    const history = await ticketHistoryOf(app.deps, ticket);
    expect(history.map((h) => [h.action, h.actorKind])).toEqual([
      ["created", "customer"],
      ["reply", "member"],
      ["note", "member"],
      ["reply", "agent"],
      ["status", "member"],
      ["customer_message", "customer"],
      ["status", "customer"],
    ]);
    expect(history.at(-1)).toMatchObject({ before: "pending", after: "open" });

    await updateTicket(app.deps, { orgId: org.org_id, actor: member(), ticketId: view.id, patch: { status: "closed" } });
    await rejects(addTicketMessage(app.deps, { orgId: org.org_id, actor: member(), ticketId: view.id, kind: "reply", body: "x" }), 409);
    await rejects(addTicketMessage(app.deps, { orgId: org.org_id, actor: customer, ticketId: view.id, kind: "customer", body: "x" }), 409);
    await addTicketMessage(app.deps, { orgId: org.org_id, actor: member(), ticketId: view.id, kind: "note", body: "closing note" });
  }, 20_000);

  test("triage records one history entry per changed field, none for unchanged ones", async () => {
    const view = await createTicket(app.deps, { orgId: org.org_id, actor: customer, input: { subject: "Triage", message: "m", source: "api" } });
    const actor = { kind: "token" as const, tokenId: "tok", clientId: "client-1", memberId: org.admin_id, scopes: ["inbox:write"] };
    const updated = await updateTicket(app.deps, {
      orgId: org.org_id,
      actor,
      ticketId: view.id,
      patch: { status: "open", priority: "urgent", team: "billing", assigneeId: org.admin_id, tags: ["VIP", "vip", " refund "] },
    });
    expect(updated).toMatchObject({ status: "open", priority: "urgent", team: "billing", assignee_id: org.admin_id, tags: ["VIP", "refund"] });
    const rows = await app.deps.db
      .select()
      .from(ticketHistory)
      .where(and(eq(ticketHistory.ticketId, view.id), eq(ticketHistory.orgId, org.org_id)));
    expect(rows.map((r) => r.action).sort()).toEqual(["assignee", "created", "priority", "tags", "team"]);
    expect(rows.find((r) => r.action === "team")).toMatchObject({
      actorKind: "token",
      actorClientId: "client-1",
      actorMemberId: org.admin_id,
      before: null,
      after: "billing",
    });
    // Another org's member cannot be assigned; another org cannot touch the ticket.
    await rejects(updateTicket(app.deps, { orgId: org.org_id, actor, ticketId: view.id, patch: { assigneeId: other.admin_id } }), 400, "/assignee_id");
    await rejects(updateTicket(app.deps, { orgId: other.org_id, actor, ticketId: view.id, patch: { priority: "low" } }), 404);
    await rejects(addTicketMessage(app.deps, { orgId: other.org_id, actor, ticketId: view.id, kind: "note", body: "x" }), 404);
    const tags = Array.from({ length: TICKET_LIMITS.tags }, (_, i) => `t${i}`);
    expect((await updateTicket(app.deps, { orgId: org.org_id, actor, ticketId: view.id, patch: { tags } })).tags).toHaveLength(TICKET_LIMITS.tags);
    await rejects(updateTicket(app.deps, { orgId: org.org_id, actor, ticketId: view.id, patch: { tags: [...tags, "one-more"] } }), 400, "/tags");
    await rejects(
      updateTicket(app.deps, { orgId: org.org_id, actor, ticketId: view.id, patch: { tags: ["x".repeat(TICKET_LIMITS.tag + 1)] } }),
      400,
      "/tags/0",
    );
    expect((await updateTicket(app.deps, { orgId: org.org_id, actor, ticketId: view.id, patch: { tags: ["x".repeat(TICKET_LIMITS.tag)] } })).tags).toHaveLength(
      1,
    );
  }, 20_000);

  test("list: newest first, filters, and a cursor that never repeats or skips", async () => {
    const fresh = await seedInboxOrg(app);
    for (let i = 1; i <= 7; i++)
      await createTicket(app.deps, {
        orgId: fresh.org_id,
        actor: customer,
        input: { subject: i % 2 ? `odd ${i}` : `even ${i}`, message: i === 4 ? "needle in body" : "m", source: "api" },
      });
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await listTickets(app.deps, fresh.org_id, { limit: 3, cursor });
      seen.push(...page.tickets.map((t) => t.number));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect((await listTickets(app.deps, fresh.org_id, { text: "needle" })).tickets.map((t) => t.number)).toEqual([4]);
    expect((await listTickets(app.deps, fresh.org_id, { text: "#3" })).tickets.map((t) => t.number)).toEqual([3]);
    expect((await listTickets(app.deps, fresh.org_id, { text: "100%_" })).tickets).toEqual([]);
    expect((await listTickets(app.deps, fresh.org_id, { text: "odd" })).tickets).toHaveLength(4);
    await rejects(listTickets(app.deps, fresh.org_id, { cursor: "garbage" }), 400, "/cursor");
    // Messages are stored in the same org as their ticket.
    const messages = await app.deps.db.select().from(ticketMessages).where(eq(ticketMessages.orgId, fresh.org_id));
    expect(messages).toHaveLength(7);
  }, 20_000);
});
