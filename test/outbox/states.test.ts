// What the outbox tells the rooms whose rows it delivers: a row's state to join with, queued rows
// found by their payload, and a row locked while a caller decides.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq, inArray } from "drizzle-orm";
import { outbox } from "../../src/db/schema/index.ts";
import { cancelQueued, enqueue } from "../../src/outbox/outbox.ts";
import { lockedState, outboxStates, rowsByPayload } from "../../src/outbox/states.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";

let app: TestApp;
let orgId: string;
beforeAll(async () => {
  app = await createTestApp();
  orgId = (await seedOrg(app)).org_id;
}, 60_000);
afterAll(() => app.close());

test("outboxStates: a row's status, due time, error and attempts by its id", async () => {
  const now = app.clock.now;
  const id = await enqueue(app.deps.db, { orgId, kind: "states.test", payload: {}, runAt: now, now });
  const rows = await app.deps.db
    .select({
      status: outboxStates.status,
      runAt: outboxStates.runAt,
      attempts: outboxStates.attempts,
      lastError: outboxStates.lastError,
      doneAt: outboxStates.doneAt,
    })
    .from(outboxStates)
    .where(eq(outboxStates.id, id));
  expect(rows).toEqual([{ status: "pending", runAt: now, attempts: 0, lastError: null, doneAt: null }]);
});

test("rowsByPayload: only the org's rows of the kind, since the time, with the payload named", async () => {
  const now = app.clock.now;
  const other = (await seedOrg(app)).org_id;
  const live = await enqueue(app.deps.db, { orgId, kind: "states.payload", payload: { message_id: "m1", live: true }, runAt: now, now });
  const notLive = await enqueue(app.deps.db, { orgId, kind: "states.payload", payload: { message_id: "m2" }, runAt: now, now });
  const otherMessage = await enqueue(app.deps.db, { orgId, kind: "states.payload", payload: { message_id: "m3", live: true }, runAt: now, now });
  const otherKind = await enqueue(app.deps.db, { orgId, kind: "states.elsewhere", payload: { message_id: "m1", live: true }, runAt: now, now });
  const otherOrg = await enqueue(app.deps.db, { orgId: other, kind: "states.payload", payload: { message_id: "m1", live: true }, runAt: now, now });
  const old = new Date(now.getTime() - 60_000);
  const older = await enqueue(app.deps.db, { orgId, kind: "states.payload", payload: { message_id: "m1", live: true }, runAt: old, now: old });
  const found = await rowsByPayload(app.deps.db, {
    orgId,
    kind: "states.payload",
    since: new Date(now.getTime() - 1000),
    key: "message_id",
    values: ["m1", "m2"],
    equal: { live: "true" },
  });
  expect(found.map((r) => r.id)).toEqual([live]);
  await cancelQueued(
    app.deps.db,
    rowsByPayload(app.deps.db, { orgId, kind: "states.payload", since: now, key: "message_id", values: ["m1", "m2"] }),
    "test",
    now,
  );
  const statuses = await app.deps.db
    .select({ id: outbox.id, status: outbox.status })
    .from(outbox)
    .where(inArray(outbox.id, [live, notLive, otherMessage, otherKind, otherOrg, older]));
  const cancelled = statuses
    .filter((s) => s.status === "cancelled")
    .map((s) => s.id)
    .sort();
  expect(cancelled).toEqual([live, notLive].sort());
});

test("lockedState: the row's status and lease, or null for no row", async () => {
  const now = app.clock.now;
  const id = await enqueue(app.deps.db, { orgId, kind: "states.lock", payload: {}, runAt: now, now });
  const state = await app.deps.db.transaction((tx) => lockedState(tx, id));
  expect(state).toEqual({ status: "pending", lockedUntil: null });
  expect(await app.deps.db.transaction((tx) => lockedState(tx, "00000000-0000-4000-8000-000000000000"))).toBeNull();
});
