// README "Faults and shutdown": a sender that stops while its claim is running hands the rows it
// claimed back at once — pending again, the attempt not counted — so another instance (here a
// second pool on the same database) takes them on its next claim instead of after the lease. On
// both engines.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { outbox } from "../../src/db/schema/index.ts";
import { enqueue, type OutboxHandler } from "../../src/outbox/outbox.ts";
import { createOutboxPool } from "../../src/outbox/pool.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(() => app.close());

test("stopped while claiming: nothing delivered by the stopping pool, every row released and delivered by the next one", async () => {
  const kind = "release.test";
  const orgId = (await seedOrg(app)).org_id;
  const runAt = new Date(app.clock.now.getTime() - 1000);
  for (let i = 0; i < 3; i++) await enqueue(app.deps.db, { orgId, kind, payload: { n: i }, runAt, now: runAt });
  const delivered: { by: string; id: string }[] = [];
  const handler = (by: string): OutboxHandler => ({ retrySchedule: [5], deliver: async (row) => (delivered.push({ by, id: row.id }), { kind: "sent" }) });

  const stopping = createOutboxPool(app.deps, { [kind]: handler("stopping") }, { concurrency: 4 });
  const claim = stopping.pump(); // the claim's statement is on its way…
  await stopping.stop(); // …when the process is told to stop
  await claim;
  expect(delivered).toEqual([]);
  const released = await app.deps.db.select().from(outbox).where(eq(outbox.kind, kind));
  expect(released.map((r) => [r.status, r.attempts, r.claimToken, r.lockedUntil])).toEqual([
    ["pending", 0, null, null],
    ["pending", 0, null, null],
    ["pending", 0, null, null],
  ]);

  const other = createOutboxPool(app.deps, { [kind]: handler("other") }, { concurrency: 4 });
  await other.pump();
  await other.idle();
  expect(delivered.map((d) => d.by)).toEqual(["other", "other", "other"]);
  expect(new Set(delivered.map((d) => d.id)).size).toBe(3);
  const sent = await app.deps.db.select({ status: outbox.status, attempts: outbox.attempts }).from(outbox).where(eq(outbox.kind, kind));
  expect(sent).toEqual([
    { status: "sent", attempts: 1 },
    { status: "sent", attempts: 1 },
    { status: "sent", attempts: 1 },
  ]);
});
