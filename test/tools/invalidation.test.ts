// Cross-instance invalidation (src/invalidation.ts): a publish applies here at
// once, reaches every other listener on the same database through NOTIFY, is not applied twice by
// its sender, and a database that cannot LISTEN leaves the service running on the TTLs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createInvalidation } from "../../src/invalidation.ts";
import { createTestApp, type TestApp } from "../support/app.ts";

/** Setup (a fresh database, an org, a token through the OAuth flow) on a loaded machine. */
const SETUP_MS = 30_000;

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
}, SETUP_MS);
afterAll(() => app.close());

/** Resolves with what `handler` received once it has been called `times` times, or after 5 s with what it had. */
function recorder(times: number) {
  const seen: string[] = [];
  let done: () => void = () => {};
  const reached = new Promise<void>((resolve) => (done = resolve));
  return {
    seen,
    handler: (key: string) => {
      seen.push(key);
      if (seen.length >= times) done();
    },
    wait: () => Promise.race([reached, Bun.sleep(5000)]).then(() => seen),
  };
}

describe("invalidation through LISTEN/NOTIFY", () => {
  test("the sender applies a publish at once and once; another instance receives it", async () => {
    const a = createInvalidation({ db: app.deps.db, log: app.deps.log, listen: app.database.listen });
    const b = createInvalidation({ db: app.deps.db, log: app.deps.log, listen: app.database.listen });
    await Promise.all([a.start(), b.start()]);
    const onA = recorder(1);
    const onB = recorder(2);
    a.subscribe("tools", onA.handler);
    b.subscribe("tools", onB.handler);
    const tokensOnB = recorder(1);
    b.subscribe("tokens", tokensOnB.handler);

    a.publish("tools", "org-1");
    expect(onA.seen).toEqual(["org-1"]); // synchronously, before any round trip
    a.publish("tokens", "*");
    a.publish("tools", "org-2");
    // Each NOTIFY goes out on whichever pooled connection is free: their order is not promised.
    expect((await onB.wait()).toSorted()).toEqual(["org-1", "org-2"]);
    expect(await tokensOnB.wait()).toEqual(["*"]);
    // Let the sender's own notifications arrive: it ignores its echo.
    await Bun.sleep(50);
    expect(onA.seen).toEqual(["org-1", "org-2"]); // applied here in publish order, once each
    await Promise.all([a.stop(), b.stop()]);
  });

  test("a database that refuses LISTEN: a warning, local invalidation still works", async () => {
    const warnings: string[] = [];
    const log = { ...app.deps.log, warn: (message: string) => void warnings.push(message) };
    const broken = createInvalidation({ db: app.deps.db, log, listen: () => Promise.reject(new Error("LISTEN is not supported")) });
    await broken.start();
    expect(warnings).toEqual(["cross-instance invalidation unavailable; other instances' changes arrive within the cache TTLs"]);
    const local = recorder(1);
    broken.subscribe("tools", local.handler);
    broken.publish("tools", "org-3");
    expect(local.seen).toEqual(["org-3"]);
  });
});
