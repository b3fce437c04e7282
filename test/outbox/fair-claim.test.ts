// The outbox claim is fair (src/outbox/claim.ts claimDue): it takes the oldest due row of every
// (org, lane) before the second oldest of any, counts the rows already in flight first, and leaves
// rows past a per-lane or per-org cap for later. Rows are enqueued straight into the outbox (the
// claim reads only kind, org, lane and times), on both engines.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { outbox } from "../../src/db/schema/index.ts";
import { claimDue, OUTBOX_LEASE_MS, recordOutcome } from "../../src/outbox/claim.ts";
import { enqueue, type OutboxHandler } from "../../src/outbox/outbox.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(() => app.close());

const handler: OutboxHandler = { retrySchedule: [5], deliver: async () => ({ kind: "sent" }) };

/** `count` rows of `kind` for the org and lane, due one millisecond apart before now. */
async function queue(orgId: string, kind: string, lane: string | undefined, count: number, ageMs = 60_000) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const runAt = new Date(app.clock.now.getTime() - ageMs + i);
    ids.push(await enqueue(app.deps.db, { orgId, kind, lane, payload: { n: i }, runAt, now: runAt }));
  }
  return ids;
}

describe("fair claims", () => {
  test("a lane's backlog takes at most its cap; another org's one row is claimed in the same claim", async () => {
    const kind = "fair.a";
    const a = (await seedOrg(app)).org_id;
    const b = (await seedOrg(app)).org_id;
    const aRows = await queue(a, kind, "endpoint-a", 30, 120_000); // older than B's
    const [bRow] = await queue(b, kind, "endpoint-b", 1, 1_000);
    const claimed = await claimDue(app.deps, [kind], 8, { lane: 2, org: 4 });
    expect(claimed.map((r) => r.id)).toContain(bRow!);
    // A's two oldest: a lane is first come, first served within itself.
    expect(
      claimed
        .filter((r) => r.orgId === a)
        .map((r) => r.id)
        .sort(),
    ).toEqual(aRows.slice(0, 2).sort());
    expect(claimed).toHaveLength(3);
    // While those two are in flight (in any process), A's lane gets nothing more.
    expect(await claimDue(app.deps, [kind], 8, { lane: 2, org: 4 })).toEqual([]);
    // One ends: one slot of A's lane opens, the next oldest of A's.
    const first = claimed.find((r) => r.orgId === a)!;
    expect(await recordOutcome(app.deps, first, handler, { kind: "sent" })).toBe(true);
    expect((await claimDue(app.deps, [kind], 8, { lane: 2, org: 4 })).map((r) => r.id)).toEqual([aRows[2]!]);
  });

  test("an org's cap spans its lanes, which share it round-robin", async () => {
    const kind = "fair.b";
    const a = (await seedOrg(app)).org_id;
    const b = (await seedOrg(app)).org_id;
    const lanes = ["e1", "e2", "e3"];
    for (const lane of lanes) await queue(a, kind, lane, 10, 120_000);
    await queue(b, kind, "e4", 1, 1_000);
    const claimed = await claimDue(app.deps, [kind], 8, { lane: 2, org: 4 });
    const ofA = claimed.filter((r) => r.orgId === a);
    expect(ofA).toHaveLength(4); // the org cap
    // The oldest of every lane before a second of any.
    expect(new Set(ofA.map((r) => r.lane))).toEqual(new Set(lanes));
    expect(claimed.filter((r) => r.orgId === b)).toHaveLength(1);
  });

  test("without caps the claim still alternates: a new org's row is not behind another org's backlog", async () => {
    const kind = "fair.c";
    const a = (await seedOrg(app)).org_id;
    const b = (await seedOrg(app)).org_id;
    const aRows = await queue(a, kind, undefined, 20, 120_000);
    const [bRow] = await queue(b, kind, undefined, 1, 1_000);
    const claimed = await claimDue(app.deps, [kind], 2);
    expect(claimed.map((r) => r.id).sort()).toEqual([aRows[0]!, bRow!].sort());
    // The rows in flight count first: A still has one, B none, so B's next row (due later than all of A's) comes before A's second.
    expect(await recordOutcome(app.deps, claimed.find((r) => r.id === bRow)!, handler, { kind: "sent" })).toBe(true);
    const [bNext] = await queue(b, kind, undefined, 1, 500);
    expect((await claimDue(app.deps, [kind], 1)).map((r) => r.id)).toEqual([bNext!]);
  });

  test("at the cap: exactly `lane` rows in flight per lane, never one more", async () => {
    const kind = "fair.d";
    const a = (await seedOrg(app)).org_id;
    await queue(a, kind, "only", 5);
    expect(await claimDue(app.deps, [kind], 10, { lane: 1 })).toHaveLength(1);
    expect(await claimDue(app.deps, [kind], 10, { lane: 1 })).toHaveLength(0);
    expect(await claimDue(app.deps, [kind], 10, { lane: 2 })).toHaveLength(1);
    expect(await claimDue(app.deps, [kind], 10, { lane: 2 })).toHaveLength(0);
  });

  test("a claim whose lease ran out frees its slot and its row is claimed again (at-least-once)", async () => {
    const kind = "fair.e";
    const a = (await seedOrg(app)).org_id;
    await queue(a, kind, "l", 3);
    const [held] = await claimDue(app.deps, [kind], 10, { lane: 1 });
    expect(await claimDue(app.deps, [kind], 10, { lane: 1 })).toEqual([]);
    app.clock.advance(OUTBOX_LEASE_MS);
    const [again] = await claimDue(app.deps, [kind], 10, { lane: 1 });
    expect(again!.id).toBe(held!.id); // the oldest of the lane, the crashed sender's row
    expect(again!.attempts).toBe(2);
    expect(await recordOutcome(app.deps, held!, handler, { kind: "sent" })).toBe(false); // the stale claim cannot record
    const [row] = await app.deps.db.select().from(outbox).where(eq(outbox.id, held!.id));
    expect(row!.status).toBe("sending");
  });

  test("kinds do not share lanes: a claim for one kind never takes or counts another's rows", async () => {
    const a = (await seedOrg(app)).org_id;
    await queue(a, "fair.f1", "x", 3);
    await queue(a, "fair.f2", "x", 3);
    expect((await claimDue(app.deps, ["fair.f1"], 10, { lane: 2 })).every((r) => r.kind === "fair.f1")).toBe(true);
    expect(await claimDue(app.deps, ["fair.f2"], 10, { lane: 2 })).toHaveLength(2);
  });
});

describe("ordered kinds share a lane's queue (a ticket's reply, then its rating email)", () => {
  test("a stuck row holds back only the later ordered rows of its own lane, whatever their kind", async () => {
    const a = (await seedOrg(app)).org_id;
    const ordered = ["ord.reply", "ord.rating", "ord.invite"];
    const kinds = [...ordered, "ord.unordered"];
    // The reply of ticket 1 waits for a retry an hour away: it is unfinished.
    const stuckAt = new Date(app.clock.now.getTime() + 3_600_000);
    const stuck = await enqueue(app.deps.db, { orgId: a, kind: "ord.reply", lane: "ticket:1", payload: {}, runAt: stuckAt, now: app.clock.now });
    const [behind] = await queue(a, "ord.rating", "ticket:1", 1);
    const [otherTicket] = await queue(a, "ord.rating", "ticket:2", 1);
    const [noLane] = await queue(a, "ord.invite", undefined, 1);
    const [notOrdered] = await queue(a, "ord.unordered", "ticket:1", 1);
    const claimed = (await claimDue(app.deps, kinds, 10, {}, ordered)).map((r) => r.id);
    expect(new Set(claimed)).toEqual(new Set([otherTicket!, noLane!, notOrdered!]));
    // The reply given up: the rating email behind it goes.
    await app.deps.db.update(outbox).set({ status: "failed" }).where(eq(outbox.id, stuck));
    expect((await claimDue(app.deps, kinds, 10, {}, ordered)).map((r) => r.id)).toEqual([behind!]);
  });
});
