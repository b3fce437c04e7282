// README "Faults and shutdown": the outbox loop rides out a database outage — each failed pass
// doubles the pause (1 s, then 2, 4, 8, never more than MAX_BACKOFF_MS), is logged once as
// database_unavailable, and the first pass that succeeds brings the normal pace back. The loop's
// timers are injected, so the test reads the pauses it asks for instead of waiting them.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createOutboxLoop, type LoopTimers, MAX_BACKOFF_MS } from "../../src/outbox/loop.ts";
import { createTestApp, type TestApp } from "../support/app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ LOG_LEVEL: "info" });
}, 60_000);
afterAll(() => app.close());

test("failed passes back off up to the cap; the first success resumes the normal pace", async () => {
  const pending: { run: () => void; ms: number }[] = [];
  const timers: LoopTimers = { setTimeout: (run, ms) => pending.push({ run, ms }), clearTimeout: () => {} };
  let down = true;
  // What postgres.js throws when the server refuses the connection.
  const before = async () => {
    if (down) throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED", syscall: "connect" });
  };
  const loop = createOutboxLoop(app.deps, { pools: [{ handlers: {}, concurrency: 1, before }], intervalMs: 1000, timers });
  const logsBefore = app.logs.length;
  loop.start();
  const pauses: number[] = [];
  const next = async () => {
    while (pending.length === 0) await Bun.sleep(1);
    const timer = pending.shift()!;
    pauses.push(timer.ms);
    return timer;
  };
  for (let i = 0; i < 5; i++) (await next()).run();
  down = false;
  (await next()).run(); // succeeds
  await next();
  expect(pauses).toEqual([1000, 2000, 4000, MAX_BACKOFF_MS, MAX_BACKOFF_MS, MAX_BACKOFF_MS, 1000]);
  const logged = (app.logs.slice(logsBefore) as { msg: string; database_unavailable?: boolean }[]).filter((l) => /sender/.test(l.msg));
  expect(logged.map((l) => [l.msg, l.database_unavailable ?? null])).toEqual([
    ...Array.from({ length: 5 }, () => ["sender tick failed", true]),
    ["sender resumed", null],
  ]);
  await loop.stop();
});
