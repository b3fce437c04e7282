// The per-org cache the knowledge index and the passage vectors share (src/kit/org-cache.ts).
import { describe, expect, test } from "bun:test";
import { createOrgCache, createOrgCaches, type OrgCacheKind } from "../../src/kit/org-cache.ts";
import { rejectionOf } from "../support/settle.ts";

interface Value {
  built: number[];
  weight: number;
}

const kind = (budget = 100): OrgCacheKind<Value> => ({ name: "test", budget, empty: () => ({ built: [], weight: 0 }), weight: (v) => v.weight });

/** A build that records the version it reached, holding its value's weight. */
const build =
  (version: number, weight = 1) =>
  async (value: Value) => {
    value.built.push(version);
    value.weight = weight;
    return version;
  };

/** A promise and its resolve, to hold a build open. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("per-org cache", () => {
  test("builds once per version: the same version is served as held, a new version rebuilds", async () => {
    const cache = createOrgCache(kind());
    const first = await cache.get("org", 1, build(1));
    expect(first.built).toEqual([1]);
    expect(await cache.get("org", 1, build(1))).toBe(first);
    expect(first.built).toEqual([1]);
    const second = await cache.get("org", 2, build(2));
    expect(second).toBe(first); // brought up to date in place
    expect(second.built).toEqual([1, 2]);
    // Version 0 (an org without documents yet) is still built once.
    expect((await cache.get("other", 0, build(0))).built).toEqual([0]);
    expect((await cache.get("other", 0, build(0))).built).toEqual([0]);
  });

  test("concurrent callers at one version share one build", async () => {
    const cache = createOrgCache(kind());
    const g = gate();
    let builds = 0;
    const slow = async (value: Value) => {
      builds++;
      await g.opened;
      value.built.push(5);
      return 5;
    };
    const calls = [cache.get("org", 5, slow), cache.get("org", 5, slow), cache.get("org", 5, slow)];
    g.open();
    const values = await Promise.all(calls);
    expect(builds).toBe(1);
    expect(values[0]!.built).toEqual([5]);
    expect(new Set(values).size).toBe(1);
  });

  test("a caller at a newer version waits for the running build, then for one that starts after it", async () => {
    const cache = createOrgCache(kind());
    const g = gate();
    const started: number[] = [];
    const at = (version: number, wait?: Promise<void>) => async (value: Value) => {
      started.push(version);
      if (wait) await wait;
      value.built.push(version);
      return version;
    };
    const old = cache.get("org", 1, at(1, g.opened));
    const newer = cache.get("org", 2, at(2));
    const sameNewer = cache.get("org", 2, at(2));
    g.open();
    await old;
    const [a, b] = await Promise.all([newer, sameNewer]);
    expect(started).toEqual([1, 2]); // the two newer callers shared the second build
    expect(a!.built).toEqual([1, 2]);
    expect(b).toBe(a);
  });

  test("a failed build reaches its callers, and the next call builds again", async () => {
    const cache = createOrgCache(kind());
    const failing = async () => {
      throw new Error("database gone");
    };
    expect((await rejectionOf(cache.get("org", 1, failing))).message).toBe("database gone");
    expect((await cache.get("org", 1, build(1))).built).toEqual([1]);
  });

  test("over its budget the least recently asked orgs are dropped, never the one just asked", async () => {
    const cache = createOrgCache(kind(10));
    await cache.get("a", 1, build(1, 4));
    await cache.get("b", 1, build(1, 4));
    await cache.get("a", 1, build(1, 4)); // a is now the most recently asked
    expect(cache.orgs()).toEqual(["b", "a"]);
    await cache.get("c", 1, build(1, 4)); // 12 > 10: b goes
    expect(cache.orgs()).toEqual(["a", "c"]);
    await cache.get("big", 1, build(1, 50)); // over the budget alone: everyone else goes, it stays
    expect(cache.orgs()).toEqual(["big"]);
    // A dropped org starts again from an empty value.
    expect((await cache.get("b", 1, build(1, 4))).built).toEqual([1]);
    expect(cache.orgs()).toEqual(["b"]);
    cache.delete("b");
    expect(cache.orgs()).toEqual([]);
  });

  test("one cache per kind: kinds do not share orgs or budgets", async () => {
    const caches = createOrgCaches();
    const small = kind(1);
    const other = kind(1);
    expect(caches.of(small)).toBe(caches.of(small));
    await caches.of(small).get("org", 1, build(1, 1));
    await caches.of(other).get("org", 7, build(7, 1));
    expect((await caches.of(small).get("org", 1, build(1))).built).toEqual([1]);
    expect((await caches.of(other).get("org", 7, build(7))).built).toEqual([7]);
    // Another set of caches (another Deps) holds nothing of these.
    expect(createOrgCaches().of(small).orgs()).toEqual([]);
  });
});
