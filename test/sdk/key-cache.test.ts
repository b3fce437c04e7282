// The widget key cache (src/sdk/auth.ts createWidgetKeyCache): a key revoked, created or with
// changed origins through the service is seen by this process on its next request and by another
// instance through NOTIFY; a change the service never heard of (made in the database by hand) is
// seen within WIDGET_KEY_CACHE_TTL_MS.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { systemActor } from "../../src/kit/actor.ts";
import { widgetKeys } from "../../src/db/schema/index.ts";
import { createInvalidation } from "../../src/invalidation.ts";
import { createWidgetKey, revokeWidgetKey } from "../../src/orgs/widget-access.ts";
import { createWidgetKeyCache, WIDGET_KEY_CACHE_TTL_MS } from "../../src/sdk/auth.ts";
import { setAllowedOrigins } from "../../src/sdk/settings.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";

let app: TestApp;
let orgId: string;
const actor = systemActor("test");

beforeAll(async () => {
  app = await createTestApp();
  orgId = (await seedOrg(app)).org_id;
}, 30_000);
afterAll(() => app.close());

/** Polls `check` until it holds or 5 s pass; returns whether it held. */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return true;
    await Bun.sleep(50);
  }
  return false;
}

describe("widget key cache", () => {
  test("another instance drops a revoked key and sees new origins through NOTIFY", async () => {
    const other = createInvalidation({ db: app.deps.db, log: app.deps.log, listen: app.database.listen });
    await other.start();
    const elsewhere = createWidgetKeyCache(app.deps, other);
    const key = await createWidgetKey(app.deps, orgId, actor, "two instances");
    expect((await elsewhere.get(key.key))?.orgId).toBe(orgId);

    await setAllowedOrigins(app.deps, orgId, actor, ["https://shop.example"]);
    expect(await eventually(async () => (await elsewhere.get(key.key))?.allowedOrigins?.[0] === "https://shop.example")).toBe(true);

    await revokeWidgetKey(app.deps, orgId, actor, key.id);
    expect(await app.deps.widgetKeys.get(key.key)).toBeNull(); // here: at once
    expect(await eventually(async () => (await elsewhere.get(key.key)) === null)).toBe(true);
    await other.stop();
  });

  test("a key presented before it existed works as soon as it is created", async () => {
    // The org's first key is cached as unknown if presented early; creation publishes.
    const key = await createWidgetKey(app.deps, orgId, actor, "fresh");
    expect((await app.deps.widgetKeys.get(key.key))?.id).toBe(key.id);
  });

  test("a revocation made in the database by hand is seen within the TTL, never later", async () => {
    const key = await createWidgetKey(app.deps, orgId, actor, "by hand");
    expect(await app.deps.widgetKeys.get(key.key)).not.toBeNull();
    await app.deps.db.update(widgetKeys).set({ revokedAt: new Date() }).where(eq(widgetKeys.id, key.id));
    app.clock.advance(WIDGET_KEY_CACHE_TTL_MS);
    expect(await app.deps.widgetKeys.get(key.key)).toBeNull();
  });
});
