// The benchmark's open-loop generator (bench/open-loop.ts): it sends on its schedule whether or
// not answers came back, and measures each latency from the scheduled send. Checked against a
// server that answers nothing until it has received every scheduled request — a closed loop would
// wait for the first answer forever; an open loop sends them all. No timing thresholds: the
// bounds below follow from the schedule itself.
import { afterEach, expect, test } from "bun:test";
import { runOpenLoop } from "../../bench/open-loop.ts";

let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => {
  server?.stop(true);
  server = undefined;
});

/**
 * A server that holds every answer until it has received `count` requests, then answers them all
 * 200 (or `status`); after 2 s it answers anyway, so a generator that waits fails the counts
 * instead of hanging.
 */
function gate(count: number, status = 200) {
  let received = 0;
  let openedBy: "count" | "timer" | undefined;
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  const open = (by: "count" | "timer") => {
    openedBy ??= by;
    release();
  };
  setTimeout(() => open("timer"), 2000).unref();
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch() {
      if (++received >= count) open("count");
      await opened;
      return new Response("{}", { status });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, received: () => received, openedBy: () => openedBy };
}

const base = { method: "POST", headers: {}, body: "{}", expectStatus: 200, connections: 1, warmupMs: 0 };

test("every scheduled request is sent although none has been answered yet", async () => {
  const g = gate(20);
  const result = await runOpenLoop({ ...base, url: g.url, rate: 100, durationMs: 200 });
  expect(g.openedBy()).toBe("count");
  expect(g.received()).toBe(20);
  expect(result.sent).toBe(20);
  expect(result.requests).toBe(20);
  expect(result.errors).toBe(0);
  // The first answer cannot come before the 20th request was sent, scheduled 190 ms after the first.
  expect(result.maxMs).toBeGreaterThanOrEqual(190);
});

test("requests scheduled in the warm-up are sent but not counted", async () => {
  const g = gate(20);
  const result = await runOpenLoop({ ...base, url: g.url, rate: 100, warmupMs: 100, durationMs: 100 });
  expect(g.received()).toBe(20);
  expect(result.sent).toBe(20);
  expect(result.requests).toBe(10);
});

test("an unexpected status counts as an error, not as a sample", async () => {
  const g = gate(5, 503);
  const result = await runOpenLoop({ ...base, url: g.url, rate: 100, durationMs: 50 });
  expect(result.requests).toBe(0);
  expect(result.errors).toBe(5);
  expect(result.firstError).toContain("503");
});
