// /api/knowledge/sources (README "Knowledge sources"): roles (knowledge:view reads, knowledge:manage
// changes), fields checked with the field named, limits at their boundaries, 404 for another org's
// or a malformed id, 409 for "sync now" while a sync runs, the OpenAPI document.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { members, memberships } from "../../src/db/schema/index.ts";
import { SOURCE_LIMITS, SYNC_LIMITS } from "../../src/sources/model.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

let app: TestApp;
let admin: string;
let viewer: string;
let otherAdmin: string;
let site: ReturnType<typeof Bun.serve>;
let origin: string;
let releaseRobots: () => void = () => {};

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development" });
  const org = await seedOrg(app);
  admin = await signIn(app, org.admin_email, org.password);
  const email = `viewer-${crypto.randomUUID()}@example.com`;
  const password = `pw-${crypto.randomUUID()}`;
  const [member] = await app.deps.db
    .insert(members)
    .values({ email, name: "Viewer", passwordHash: await app.deps.passwords.hash(password) })
    .returning();
  await app.deps.db.insert(memberships).values({ orgId: org.org_id, memberId: member!.id, roles: ["knowledge:view"] });
  viewer = await signIn(app, email, password);
  const other = await seedOrg(app);
  otherAdmin = await signIn(app, other.admin_email, other.password);
  // robots.txt answers only when released: the first sync stays running.
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      if (new URL(request.url).pathname === "/robots.txt") await new Promise<void>((resolve) => (releaseRobots = resolve));
      return new Response("not found", { status: 404 });
    },
  });
  origin = `http://127.0.0.1:${site.port}`;
});

afterAll(async () => {
  releaseRobots();
  await Bun.sleep(50);
  site.stop(true);
  await app.close();
});

const call = (token: string, path: string, init: Parameters<TestApp["request"]>[1] = {}) =>
  app.request(path, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
const problemsOf = async (res: Response) => ((await res.json()) as any).error.details.map((d: { path: string }) => d.path);
const website = (extra: Record<string, unknown> = {}) => ({ kind: "website", name: "Site", start_url: `${origin}/`, ...extra });

describe("/api/knowledge/sources", () => {
  let id: string;

  test("knowledge:manage creates (the first sync starts); a second 'sync now' while it runs is 409", async () => {
    const res = await call(admin, "/api/knowledge/sources", { json: website() });
    expect(res.status).toBe(201);
    const body = (await res.json()) as any;
    id = body.id;
    expect(body).toMatchObject({
      kind: "website",
      name: "Site",
      status: "syncing",
      max_pages: SOURCE_LIMITS.defaultPages,
      interval_seconds: SOURCE_LIMITS.defaultInterval,
      include: [],
      exclude: [],
      progress: { done: 0, found: 0 },
    });
    const again = await call(admin, `/api/knowledge/sources/${id}/sync`, { method: "POST" });
    expect(again.status).toBe(409);
  });

  test("a request with no answer is given up at the page's time limit, not a millisecond before; the sync fails with the reason", async () => {
    const status = async () => (await (await call(admin, `/api/knowledge/sources/${id}`)).json()) as any;
    // The robots.txt request is in flight (the site holds it).
    while (!(await status()).progress || (await status()).status !== "syncing") await Bun.sleep(20);
    await Bun.sleep(100);
    app.clock.advance(SYNC_LIMITS.pageTimeoutMs - 1);
    await Bun.sleep(200);
    expect((await status()).status).toBe("syncing");
    app.clock.advance(1);
    let source = await status();
    while (source.status === "syncing") {
      await Bun.sleep(20);
      source = await status();
    }
    expect(source.status).toBe("failed");
    expect(source.reason).toBe(`robots.txt could not be read (no answer within ${SYNC_LIMITS.pageTimeoutMs / 1000} s), so the site is not crawled`);
    // Held again for the tests below.
    expect((await call(admin, `/api/knowledge/sources/${id}/sync`, { method: "POST" })).status).toBe(202);
  });

  test("knowledge:view lists and reads but cannot change, sync or delete", async () => {
    const list = await call(viewer, "/api/knowledge/sources");
    expect(list.status).toBe(200);
    expect(((await list.json()) as any).sources.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await call(viewer, `/api/knowledge/sources/${id}`)).status).toBe(200);
    expect((await call(viewer, "/api/knowledge/sources", { json: website() })).status).toBe(403);
    expect((await call(viewer, `/api/knowledge/sources/${id}`, { method: "PATCH", json: { name: "x" } })).status).toBe(403);
    expect((await call(viewer, `/api/knowledge/sources/${id}/sync`, { method: "POST" })).status).toBe(403);
    expect((await call(viewer, `/api/knowledge/sources/${id}`, { method: "DELETE" })).status).toBe(403);
    expect((await app.request("/api/knowledge/sources")).status).toBe(401);
  });

  test("another org's source and a malformed id are 404", async () => {
    expect((await call(otherAdmin, `/api/knowledge/sources/${id}`)).status).toBe(404);
    expect((await call(otherAdmin, `/api/knowledge/sources/${id}`, { method: "DELETE" })).status).toBe(404);
    expect((await call(admin, "/api/knowledge/sources/not-a-uuid")).status).toBe(404);
  });

  test("fields are checked, each problem named by its path", async () => {
    const bad = async (body: Record<string, unknown>) => {
      const res = await call(admin, "/api/knowledge/sources", { json: body });
      expect(res.status).toBe(400);
      return problemsOf(res);
    };
    expect(await bad({ kind: "website", name: "x" })).toEqual(["/start_url"]);
    expect(await bad(website({ start_url: "ftp://example.com/" }))).toEqual(["/start_url"]);
    expect(await bad(website({ start_url: "http://10.0.0.1/" }))).toEqual(["/start_url"]);
    expect(await bad(website({ include: ["docs/*"] }))).toEqual(["/include/0"]);
    expect(await bad(website({ token: "t" }))).toEqual(["/token"]);
    expect(await bad({ kind: "intercom", name: "I", base_url: `${origin}/ic` })).toEqual(["/token"]);
    expect(await bad({ kind: "zendesk", name: "Z", base_url: `${origin}/zd`, locale: "en us" })).toEqual(["/locale"]);
    expect((await call(admin, "/api/knowledge/sources", { json: { kind: "notion", name: "N" } })).status).toBe(400);
  });

  test("limits at their boundaries: pages and interval", async () => {
    const status = async (extra: Record<string, unknown>) => (await call(admin, "/api/knowledge/sources", { json: website(extra) })).status;
    expect(await status({ max_pages: SOURCE_LIMITS.maxPages + 1 })).toBe(400);
    expect(await status({ max_pages: 0 })).toBe(400);
    expect(await status({ interval_seconds: SOURCE_LIMITS.minInterval - 1 })).toBe(400);
    expect(await status({ interval_seconds: SOURCE_LIMITS.maxInterval + 1 })).toBe(400);
    expect(await status({ max_pages: SOURCE_LIMITS.maxPages, interval_seconds: SOURCE_LIMITS.minInterval })).toBe(201);
    expect(await status({ interval_seconds: SOURCE_LIMITS.maxInterval })).toBe(201);
  });

  test("PATCH changes the name and patterns; DELETE removes the source", async () => {
    const res = await call(admin, `/api/knowledge/sources/${id}`, { method: "PATCH", json: { name: "Renamed", exclude: ["/blog/*"] } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: "Renamed", exclude: ["/blog/*"] });
    expect((await call(admin, `/api/knowledge/sources/${id}`, { method: "PATCH", json: {} })).status).toBe(400);
    releaseRobots();
    expect((await call(admin, `/api/knowledge/sources/${id}`, { method: "DELETE" })).status).toBe(204);
    expect((await call(admin, `/api/knowledge/sources/${id}`)).status).toBe(404);
  });

  test("the OpenAPI document lists every operation with its tag and summary", async () => {
    const doc = (await (await app.request("/api/openapi.json")).json()) as any;
    const ops = [
      doc.paths["/api/knowledge/sources"].get,
      doc.paths["/api/knowledge/sources"].post,
      doc.paths["/api/knowledge/sources/{id}"].get,
      doc.paths["/api/knowledge/sources/{id}"].patch,
      doc.paths["/api/knowledge/sources/{id}"].delete,
      doc.paths["/api/knowledge/sources/{id}/sync"].post,
    ];
    for (const op of ops) {
      expect(op.tags).toEqual(["Knowledge sources"]);
      expect(op.summary.length).toBeGreaterThan(10);
    }
  });
});
