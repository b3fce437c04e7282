// The periodic jobs of a server process (docs/architecture.md "Periodic jobs"): one list in the
// composition root, each job named with its interval, and one runner on deps.timers (which follow
// the test clock here).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { jobs } from "../src/compose.ts";
import { runJobs } from "../src/jobs.ts";
import { dashboardSessions, members } from "../src/db/schema/index.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "./support/app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

describe("the list", () => {
  test("every job has a name of its own and an interval; the housekeeping deletes run every 10 minutes, the series sweeps in each outbox pass", () => {
    const list = jobs(app.deps);
    expect(new Set(list.map((job) => job.name)).size).toBe(list.length);
    for (const job of list) expect(job.everyMs).toBeGreaterThanOrEqual(1000);
    const by = Object.fromEntries(list.map((job) => [job.name, job]));
    for (const name of ["expired dashboard sessions", "expired rate-limit counters", "expired OAuth state", "unused OAuth clients", "activity retention"])
      expect(by[name]?.everyMs).toBe(600_000);
    expect(list.filter((job) => job.outboxPass).map((job) => job.name)).toEqual(["audience enrolment", "due series steps", "expired opt-ins"]);
    expect(by["connector discovery"]?.everyMs).toBe(30_000); // half of the default hour, at most 30 s
    expect(by["table statistics"]?.everyMs).toBe(10_000); // a catalogue query; tables analysed only once they grew
  });

  test("the runner runs a housekeeping job on its interval: an expired dashboard session is deleted after 10 minutes, not before", async () => {
    const org = await seedOrg(app);
    await signIn(app, org.admin_email, org.password);
    const [member] = await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, org.admin_email));
    // The session expired a second ago (the test clock's now).
    await app.deps.db
      .update(dashboardSessions)
      .set({ expiresAt: new Date(app.clock.now.getTime() - 1000) })
      .where(eq(dashboardSessions.memberId, member!.id));
    const sessionCount = async () => (await app.deps.db.select().from(dashboardSessions).where(eq(dashboardSessions.memberId, member!.id))).length;
    expect(await sessionCount()).toBe(1);
    const runner = runJobs(
      app.deps,
      jobs(app.deps).filter((job) => job.name === "expired dashboard sessions"),
    );
    try {
      app.clock.advance(599_000);
      await Bun.sleep(50);
      expect(await sessionCount()).toBe(1);
      app.clock.advance(1000);
      await waitFor(async () => (await sessionCount()) === 0);
    } finally {
      await runner.stop();
    }
  });
});

describe("the runner", () => {
  test("a failing job sits out 1, 3, then 7 ticks, logs each failure with its name, and is back to every tick after a success", async () => {
    let runs = 0;
    let failing = true;
    const job = {
      name: "flaky",
      everyMs: 1000,
      run: async () => {
        runs++;
        if (failing) throw new Error("database went away");
      },
    };
    const runner = runJobs(app.deps, [job]);
    const tickAndSettle = async () => {
      app.clock.advance(1000);
      await Bun.sleep(5);
    };
    const ranAt: number[] = [];
    try {
      for (let tick = 1; tick <= 16; tick++) {
        const before = runs;
        await tickAndSettle();
        if (runs > before) ranAt.push(tick);
      }
      expect(ranAt).toEqual([1, 3, 7, 15]); // sits out 1, then 3, then 7 ticks
      failing = false;
      for (let tick = 17; tick <= 30; tick++) {
        const before = runs;
        await tickAndSettle();
        if (runs > before) ranAt.push(tick);
      }
      expect(ranAt.slice(4)).toEqual([23, 24, 25, 26, 27, 28, 29, 30]); // after 7 ticks out, one success, then every tick
      const warnings = app.logs.filter((line) => line.msg === "periodic job failed" && line.job === "flaky");
      expect(warnings.length).toBe(4);
    } finally {
      await runner.stop();
    }
  });

  test("a tick while the last run is still going is skipped, and stop waits for the run in flight", async () => {
    let started = 0;
    let finished = 0;
    let release = () => {};
    const runner = runJobs(app.deps, [
      {
        name: "slow",
        everyMs: 1000,
        run: async () => {
          started++;
          await new Promise<void>((resolve) => (release = resolve));
          finished++;
        },
      },
    ]);
    app.clock.advance(1000);
    app.clock.advance(1000);
    app.clock.advance(1000);
    expect(started).toBe(1);
    const stopped = runner.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await Bun.sleep(10);
    expect(done).toBe(false);
    release();
    await stopped;
    expect(finished).toBe(1);
    app.clock.advance(5000);
    expect(started).toBe(1); // stopped: no more ticks
  });
});

async function waitFor(check: () => Promise<boolean>) {
  for (let i = 0; i < 100 && !(await check()); i++) await Bun.sleep(20);
  expect(await check()).toBe(true);
}
