// POST /api/sdk/events is one unit of work: the customers a batch names (created or updated) and
// its events are written in one transaction, so a batch that fails anywhere leaves nothing; and
// the batch's identities are resolved together, each distinct one once, in a number of statements
// that does not grow with the batch (counted through a proxy over the real database).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../src/db/client.ts";
import { customerEvents, endUsers } from "../../src/db/schema/index.ts";
import { recordEvents } from "../../src/sdk/events.ts";
import { SDK_LIMITS } from "../../src/sdk/schemas.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { sdk, userToken } from "./helpers.ts";

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
}, 30_000);
afterAll(() => app.close());

async function freshOrg(options: { verification?: boolean } = {}) {
  const org = await seedOrg(app);
  if (options.verification) {
    const admin = await signIn(app, org.admin_email, org.password);
    const res = await app.request("/api/widget/identity", { method: "PUT", headers: { authorization: `Bearer ${admin}` }, json: { enabled: true } });
    expect(res.status).toBe(200);
  }
  return {
    ...org,
    call: sdk(app, org.widget_key),
    token: (userId: string, claims: Record<string, unknown> = {}) => userToken(org.identity_secret, { user_id: userId, ...claims }, { now: app.clock.now }),
  };
}

const customersOf = async (orgId: string) =>
  (await app.deps.db.select({ externalId: endUsers.externalId, claimed: endUsers.claimedExternalId }).from(endUsers).where(eq(endUsers.orgId, orgId))).length;
const eventsOf = async (orgId: string) => Number((await app.deps.db.select({ n: count() }).from(customerEvents).where(eq(customerEvents.orgId, orgId)))[0]!.n);

/**
 * The real database with its statements counted: every select, insert, update, delete and execute,
 * inside transactions (and savepoints) too. Every statement still runs for real.
 */
function countingDb(db: Db): { db: Db; statements: () => number } {
  let statements = 0;
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, key, receiver) {
        if (key === "select" || key === "insert" || key === "update" || key === "delete" || key === "execute") statements++;
        if (key === "transaction") {
          const transaction = Reflect.get(t, key, receiver) as (fn: (tx: object) => Promise<unknown>, config?: unknown) => Promise<unknown>;
          return (fn: (tx: object) => Promise<unknown>, config?: unknown) => transaction.call(t, (tx) => fn(wrap(tx)), config);
        }
        return Reflect.get(t, key, receiver);
      },
    });
  return { db: wrap(db), statements: () => statements };
}

describe("a failing batch leaves nothing", () => {
  test("verification on: the batch's own verified user is not written when a later event names another user_id (403, the event named)", async () => {
    const org = await freshOrg({ verification: true });
    const before = await customersOf(org.org_id);
    const res = await org.call("/api/sdk/events", {
      user_id: "batch-owner",
      user_token: await org.token("batch-owner", { email: "owner@example.com", name: "Owner" }),
      events: [{ name: "first" }, { name: "second" }, { name: "last", user_id: "someone-else" }],
    });
    expect(res.status).toBe(403);
    const body = await res.json();
    expect(body.error.code).toBe("user_token_required");
    expect(body.error.details[0].path).toBe("/events/2/user_id");
    expect(await customersOf(org.org_id)).toBe(before);
    expect(await eventsOf(org.org_id)).toBe(0);
    // The same batch without the stranger is stored whole, on the verified customer.
    const ok = await org.call("/api/sdk/events", {
      user_id: "batch-owner",
      user_token: await org.token("batch-owner"),
      events: [{ name: "first" }, { name: "second" }],
    });
    expect(ok.status).toBe(200);
    expect(await eventsOf(org.org_id)).toBe(2);
  });

  test("the INSERT of the events failing (the database refuses the last event) rolls back every customer the batch created or updated", async () => {
    const org = await freshOrg();
    // A real refusal by the database, not a stand-in: a trigger that raises on one event name.
    await app.deps.db.execute(sql`create or replace function refuse_exploding_event() returns trigger language plpgsql as $$
      begin if new.name = 'explode' then raise exception 'refused by the test trigger'; end if; return new; end $$`);
    await app.deps.db.execute(
      sql`create trigger refuse_exploding_event before insert on customer_events for each row execute function refuse_exploding_event()`,
    );
    try {
      // Known before the batch: a verified customer whose claims the batch would change.
      const known = await org.call("/api/sdk/users/identify", { user_id: "known", user_token: await org.token("known", { name: "Before" }) });
      expect(known.status).toBe(200);
      const before = await customersOf(org.org_id);
      const res = await org.call("/api/sdk/events", {
        user_id: "known",
        user_token: await org.token("known", { name: "After", email: "known@example.com" }),
        events: [{ name: "a" }, { name: "b", user_id: "new-one" }, { name: "c", user_id: "new-two" }, { name: "explode", user_id: "new-three" }],
      });
      expect(res.status).toBe(500);
      expect(await customersOf(org.org_id)).toBe(before);
      const named = await app.deps.db
        .select()
        .from(endUsers)
        .where(and(eq(endUsers.orgId, org.org_id), inArray(endUsers.externalId, ["new-one", "new-two", "new-three"])));
      expect(named).toEqual([]);
      const [kept] = await app.deps.db
        .select()
        .from(endUsers)
        .where(and(eq(endUsers.orgId, org.org_id), eq(endUsers.externalId, "known")));
      expect([kept!.name, kept!.email]).toEqual(["Before", null]);
      expect(await eventsOf(org.org_id)).toBe(0);
    } finally {
      await app.deps.db.execute(sql`drop trigger if exists refuse_exploding_event on customer_events`);
    }
  });
});

describe("identities are resolved together", () => {
  const batch = (users: number, prefix: string) =>
    Array.from({ length: SDK_LIMITS.eventsPerBatch }, (_, i) => ({ name: `e${i}`, user_id: `${prefix}-${i % users}` }));

  test(`${SDK_LIMITS.eventsPerBatch} events for K distinct users: K customers, each resolved once, in as many statements for K = 2 as for K = ${SDK_LIMITS.eventsPerBatch}`, async () => {
    const org = await freshOrg();
    const run = async (users: number, prefix: string, round = 1) => {
      const counted = countingDb(app.deps.db);
      expect(await recordEvents({ ...app.deps, db: counted.db }, org.org_id, { events: batch(users, prefix) })).toEqual({
        accepted: SDK_LIMITS.eventsPerBatch,
      });
      const rows = await app.deps.db
        .select({ id: endUsers.id, externalId: endUsers.externalId })
        .from(endUsers)
        .where(and(eq(endUsers.orgId, org.org_id), sql`${endUsers.externalId} like ${`${prefix}-%`}`));
      expect(rows).toHaveLength(users);
      // Every event on its own user's record.
      for (const row of rows) {
        const n = Number((await app.deps.db.select({ n: count() }).from(customerEvents).where(eq(customerEvents.endUserId, row.id)))[0]!.n);
        expect([row.externalId, n]).toEqual([row.externalId, (round * SDK_LIMITS.eventsPerBatch) / users]);
      }
      return counted.statements();
    };
    const few = await run(2, "few");
    const many = await run(SDK_LIMITS.eventsPerBatch, "many");
    expect(many).toBe(few);
    // Known users again (nothing to create): fewer statements still, and no new rows.
    const again = await run(SDK_LIMITS.eventsPerBatch, "many", 2);
    expect(again).toBeLessThanOrEqual(few);
  });

  test("an unverified user_id naming a verified customer lands on that id's unverified visitor, in the same bulk resolution", async () => {
    const org = await freshOrg();
    const verified = await (await org.call("/api/sdk/users/identify", { user_id: "vip", user_token: await org.token("vip") })).json();
    const res = await org.call("/api/sdk/events", {
      events: [
        { name: "claimed", user_id: "vip" },
        { name: "plain", user_id: "plain" },
        { name: "claimed-again", user_id: "vip" },
      ],
    });
    expect(res.status).toBe(200);
    const rows = await app.deps.db.select().from(customerEvents).where(eq(customerEvents.orgId, org.org_id));
    expect(rows.filter((e) => e.endUserId === verified.id)).toEqual([]);
    const [visitor] = await app.deps.db
      .select()
      .from(endUsers)
      .where(and(eq(endUsers.orgId, org.org_id), eq(endUsers.claimedExternalId, "vip")));
    expect(visitor!.verified).toBe(false);
    expect(
      rows
        .filter((e) => e.endUserId === visitor!.id)
        .map((e) => e.name)
        .sort(),
    ).toEqual(["claimed", "claimed-again"]);
  });
});
