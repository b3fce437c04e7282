// src/kit/fresh-cache.ts: values never older than their bound, no caller waits for a reload
// under steady traffic, and an invalidation voids loads already in flight.
import { describe, expect, test } from "bun:test";
import { createFreshCache } from "../../src/kit/fresh-cache.ts";

function setUp() {
  let clock = 0;
  let version = 0;
  const loads: { key: string; resolve: () => void }[] = [];
  const cache = createFreshCache<string>({
    ttlMs: 1000,
    aheadMs: 250,
    maxEntries: 100,
    now: () => clock,
    // Each load answers the version current when it began, once the test lets it finish.
    load: (key) => {
      const seen = `${key}@${version}`;
      return new Promise<string>((resolve) => loads.push({ key, resolve: () => resolve(seen) }));
    },
  });
  return {
    cache,
    loads,
    tick: (ms: number) => void (clock += ms),
    change: () => void version++,
    finishAll: async () => {
      for (const l of loads.splice(0)) l.resolve();
      await Bun.sleep(0);
    },
  };
}

describe("fresh cache", () => {
  test("concurrent callers share one load", async () => {
    const t = setUp();
    const both = Promise.all([t.cache.get("a"), t.cache.get("a")]);
    expect(t.loads.length).toBe(1);
    await t.finishAll();
    expect(await both).toEqual(["a@0", "a@0"]);
  });

  test("in the last aheadMs a caller gets the current value and the next load starts behind it", async () => {
    const t = setUp();
    const first = t.cache.get("a");
    await t.finishAll();
    await first;
    t.change();
    t.tick(700); // not yet in the window
    expect(await t.cache.get("a")).toBe("a@0");
    expect(t.loads.length).toBe(0);
    t.tick(100); // 800: inside the last 250 ms
    expect(await t.cache.get("a")).toBe("a@0"); // answered at once, from the value still in bound
    expect(t.loads.length).toBe(1); // … and one reload began
    expect(await t.cache.get("a")).toBe("a@0");
    expect(t.loads.length).toBe(1); // only one
    await t.finishAll();
    t.tick(300); // 1100: past the first value's bound, within the reload's (began at 800)
    expect(await t.cache.get("a")).toBe("a@1");
    expect(t.loads.length).toBe(0);
  });

  test("past its bound a value is never served: the caller waits for a new load", async () => {
    const t = setUp();
    const first = t.cache.get("a");
    await t.finishAll();
    await first;
    t.change();
    t.tick(1000);
    const next = t.cache.get("a");
    expect(t.loads.length).toBe(1);
    await t.finishAll();
    expect(await next).toBe("a@1");
  });

  test("a load in flight when the key is invalidated never lands", async () => {
    const t = setUp();
    const first = t.cache.get("a");
    await t.finishAll();
    await first;
    t.tick(800);
    await t.cache.get("a"); // starts the background reload (it will see version 0)
    t.cache.delete("a"); // invalidated: say, a revocation
    t.change();
    await t.finishAll(); // the old reload finishes after the invalidation
    const after = t.cache.get("a");
    expect(t.loads.length).toBe(1); // it was not kept: a new load
    await t.finishAll();
    expect(await after).toBe("a@1");
  });

  test("clear voids every key", async () => {
    const t = setUp();
    const both = Promise.all([t.cache.get("a"), t.cache.get("b")]);
    await t.finishAll();
    await both;
    t.cache.clear();
    t.cache.get("a");
    t.cache.get("b");
    expect(t.loads.map((l) => l.key)).toEqual(["a", "b"]);
  });
});
