// The audit trail's group commit (src/tools/audit.ts, docs/decisions.md "Performance"): a call answers
// only once its own row is committed, calls that finish together share one INSERT, and a row the
// database refuses costs no other call its row.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../src/db/client.ts";
import { actionExecutions } from "../../src/db/schema/index.ts";
import { AUDIT_BATCH_MAX, type AuditRow, createAuditWriter, flushes } from "../../src/tools/audit.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";

let app: TestApp;
let orgId: string;
/** Statements inserting into the audit table, as they leave the process (src/db/observe.ts): every one still runs for real. */
let auditInserts = 0;

beforeAll(async () => {
  app = await createTestApp({}, { observe: (e) => e.kind === "statement" && /^insert into "action_executions"/.test(e.sql) && auditInserts++ });
  orgId = (await seedOrg(app)).org_id;
}, 30_000);
afterAll(() => app.close());

const row = (tool: string, org = orgId): AuditRow => ({
  orgId: org,
  channel: "dashboard",
  actorKind: "system",
  actorId: "audit-test",
  tool,
  sourceKind: "builtin",
  outcome: "ok",
  durationMs: 1,
  createdAt: new Date(),
});

/** Counts the audit INSERTs sent from now on. */
function countingInserts(): () => number {
  const from = auditInserts;
  return () => auditInserts - from;
}

const rowsOf = async (tool: string) => (await app.deps.db.select({ n: count() }).from(actionExecutions).where(eq(actionExecutions.tool, tool)))[0]!.n;

describe("audit writer", () => {
  test("a write resolves only once its row is in the table", async () => {
    const writer = createAuditWriter(() => app.deps.db);
    await writer.write(row("audit-one"));
    expect(await rowsOf("audit-one")).toBe(1);
  });

  test("writes that arrive while one is in flight share one INSERT, and every row lands", async () => {
    const inserts = countingInserts();
    const writer = createAuditWriter(() => app.deps.db);
    await Promise.all(Array.from({ length: 200 }, () => writer.write(row("audit-many"))));
    // The first write goes alone; the 199 queued behind it go in the next statement.
    expect(inserts()).toBe(2);
    expect(await rowsOf("audit-many")).toBe(200);
  });

  test(`a queue of exactly AUDIT_BATCH_MAX rows goes in one INSERT; one more needs a second`, async () => {
    for (const [queued, inserts] of [
      [AUDIT_BATCH_MAX, 2],
      [AUDIT_BATCH_MAX + 1, 3],
    ] as const) {
      const counted = countingInserts();
      const writer = createAuditWriter(() => app.deps.db);
      // The first write goes alone; the rest queue behind it.
      await Promise.all(Array.from({ length: 1 + queued }, () => writer.write(row(`audit-batch-${queued}`))));
      expect(counted()).toBe(inserts);
      expect(await rowsOf(`audit-batch-${queued}`)).toBe(1 + queued);
    }
  });

  test("a row the database refuses fails alone: its neighbours in the batch are written", async () => {
    const writer = createAuditWriter(() => app.deps.db);
    const unknownOrg = "00000000-0000-4000-8000-000000000000"; // violates the org foreign key
    const results = await Promise.allSettled([
      writer.write(row("audit-first")),
      writer.write(row("audit-good")),
      writer.write(row("audit-bad", unknownOrg)),
      writer.write(row("audit-good")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(await rowsOf("audit-good")).toBe(2);
    expect(await rowsOf("audit-bad")).toBe(0);
  });

  test("values are stored exactly as given, whatever characters they hold (a batch travels as arrays)", async () => {
    const writer = createAuditWriter(() => app.deps.db);
    const tricky = ['say "hi", {x}', "back\\slash\\", "NULL", "", "line\nbreak\ttab", "ünïcödé ✓ 🚀", "a,b;c", "'quoted'"];
    const createdAt = new Date("2026-01-02T03:04:05.678Z");
    await Promise.all(
      tricky.map((text, i) => writer.write({ ...row("audit-tricky"), actorId: text, error: i % 2 === 0 ? text : null, durationMs: i, createdAt })),
    );
    const stored = await app.deps.db
      .select({
        actorId: actionExecutions.actorId,
        error: actionExecutions.error,
        durationMs: actionExecutions.durationMs,
        createdAt: actionExecutions.createdAt,
        clientId: actionExecutions.clientId,
      })
      .from(actionExecutions)
      .where(eq(actionExecutions.tool, "audit-tricky"));
    expect(stored.sort((a, b) => a.durationMs - b.durationMs)).toEqual(
      tricky.map((text, i) => ({ actorId: text, error: i % 2 === 0 ? text : null, durationMs: i, createdAt, clientId: null })),
    );
  });

  test("a read's row commits without waiting for the disk; a batch holding any other row waits", async () => {
    // synchronous_commit as the batch's own transaction sees it, read inside that transaction.
    const setting = (flushes: boolean[]) =>
      app.deps.db.transaction(async (tx) => {
        const writer = createAuditWriter(() => tx as unknown as Db);
        await Promise.all(flushes.map((flush) => writer.write(row("audit-commit"), { flush })));
        return (await queryRows<{ synchronous_commit: string }>(tx, sql`show synchronous_commit`))[0]!.synchronous_commit;
      });
    expect(await setting([false])).toBe("off");
    expect(await setting([true])).toBe("on");
    // The first write goes alone; the other two share the next batch, which decides.
    expect(await setting([true, false, false])).toBe("off");
    expect(await setting([true, false, true])).toBe("on");
    // Every row is stored either way.
    expect(await rowsOf("audit-commit")).toBe(8);
    // Set for that transaction only: the connection's next one flushes again.
    expect((await queryRows<{ synchronous_commit: string }>(app.deps.db, sql`show synchronous_commit`))[0]!.synchronous_commit).toBe("on");
  });

  test("only a call that ran one of our own read-only tools skips the flush", () => {
    const builtin = { kind: "builtin" };
    expect(flushes({ readOnly: true, source: builtin }, true)).toBe(false);
    expect(flushes({ readOnly: false, source: builtin }, true)).toBe(true);
    // A third party's word that its tool only reads is not taken for the audit trail.
    expect(flushes({ readOnly: true, source: { kind: "connector" } }, true)).toBe(true);
    // Refused or unknown calls: what an audit is read for.
    expect(flushes({ readOnly: true, source: builtin }, false)).toBe(true);
    expect(flushes(undefined, false)).toBe(true);
  });
});
