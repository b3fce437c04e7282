// Custom HTTP actions: the dashboard API, headers encrypted and never returned, the request made
// through the outbound guard, and what a caller sees for upstream failures.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { actionExecutions, customActions } from "../../src/db/schema/index.ts";
import { systemActor } from "../../src/kit/actor.ts";
import { setFeatureFlag } from "../../src/orgs/service.ts";
import { SNAPSHOT_TTL_MS } from "../../src/tools/registry.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { rpc, tokensFor } from "../support/oauth.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let session: string;
let token: string;
let partner: ReturnType<typeof Bun.serve>;
const received: { method: string; path: string; host: string | null; auth: string | null; body: string }[] = [];

beforeAll(async () => {
  // Development mode: the partner API is a loopback server standing in for https://api.partner.example.
  app = await createTestApp({ NODE_ENV: "development" });
  org = await seedOrg(app);
  await setFeatureFlag(app.deps, org.org_id, systemActor("test"), "mcp_destructive_tools", true);
  session = await signIn(app, org.admin_email, org.password);
  token = (await tokensFor(app, org, "actions:read actions:write")).accessToken;
  partner = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      received.push({
        method: request.method,
        path: url.pathname + url.search,
        host: request.headers.get("host"),
        auth: request.headers.get("authorization"),
        body: await request.text(),
      });
      if (url.pathname === "/orders/broken") return Response.json({ error: "boom" }, { status: 502 });
      if (url.pathname === "/redirect") return Response.redirect("http://169.254.169.254/latest/meta-data/", 302);
      if (url.pathname === "/big") return new Response("x".repeat(1024 * 1024 + 1));
      return Response.json({ ok: true, path: url.pathname, query: Object.fromEntries(url.searchParams) });
    },
  });
  app.hosts.set("api.partner.example", ["127.0.0.1"]);
}, 30_000); // a fresh database, a sign-in and the OAuth flow: seconds on a loaded machine
afterAll(async () => {
  partner.stop(true);
  await app.close();
});

const auth = () => ({ authorization: `Bearer ${session}` });
const base = () => `http://api.partner.example:${partner.port}`;

async function create(body: Record<string, unknown>) {
  return app.request("/api/integrations/custom-actions", { json: body, headers: auth() });
}

describe("API", () => {
  test("create: 201, header values never returned, encrypted at rest", async () => {
    const res = await create({
      slug: "lookup_order",
      description: "Look up an order by number",
      method: "GET",
      url: `${base()}/orders`,
      headers: { Authorization: "Bearer partner-secret-123" },
      input_schema: { type: "object", properties: { number: { type: "string" } }, required: ["number"] },
      destructive: false,
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ action_id: "custom.lookup_order", header_names: ["Authorization"], destructive: false, method: "GET" });
    expect(JSON.stringify(body)).not.toContain("partner-secret-123");
    const list = await (await app.request("/api/integrations/custom-actions", { headers: auth() })).text();
    expect(list).not.toContain("partner-secret-123");
    // The answer keeps the whole input schema (the response schema describes it as free-form).
    expect((JSON.parse(list) as { actions: { input_schema: unknown }[] }).actions[0]!.input_schema).toEqual({
      type: "object",
      properties: { number: { type: "string" } },
      required: ["number"],
    });
    const [row] = await app.deps.db.select().from(customActions).where(eq(customActions.slug, "lookup_order"));
    expect(row!.headers).not.toContain("partner-secret-123");
    expect(row!.headers).toStartWith("v1.");
  });

  test("validation: slug pattern, duplicate slug, bad schema, reserved header, blocked URL", async () => {
    const valid = { description: "x", method: "POST", url: `${base()}/x` };
    expect((await create({ ...valid, slug: "Bad-Slug" })).status).toBe(400);
    expect((await create({ ...valid, slug: "a".repeat(33) })).status).toBe(400);
    expect((await create({ ...valid, slug: "a".repeat(32) })).status).toBe(201);
    expect((await create({ ...valid, slug: "lookup_order" })).status).toBe(409);
    expect((await create({ ...valid, slug: "s1", input_schema: { type: "array" } })).status).toBe(400);
    const reserved = await create({ ...valid, slug: "s2", headers: { Host: "evil.example" } });
    expect(reserved.status).toBe(400);
    expect(JSON.stringify(await reserved.json())).toContain("/headers/Host");
    const ssrf = await create({ ...valid, slug: "s3", url: "https://169.254.169.254/latest/meta-data/" });
    expect(ssrf.status).toBe(400);
    const details = ((await ssrf.json()) as { error: { details: { path: string; message: string }[] } }).error.details;
    expect(details[0]!.path).toBe("/url");
  });

  test("simultaneous creates of one slug: exactly one 201, every other 409 naming /slug, never a 500; one row, one log entry", async () => {
    // Several pass the slug pre-check before any has inserted: the unique index decides, and its
    // violation must read as the same 409 the pre-check gives.
    const body = { slug: "raced_slug", description: "Raced", method: "GET", url: `${base()}/raced` };
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(body)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const res of answers.filter((r) => r.status === 409)) {
      const { error } = (await res.json()) as { error: { code: string; message: string; details: { path: string }[] } };
      expect(error.code).toBe("conflict");
      expect(error.message).toBe("A custom action with slug raced_slug exists.");
      expect(error.details.map((d) => d.path)).toEqual(["/slug"]);
    }
    const rows = await app.deps.db
      .select()
      .from(customActions)
      .where(and(eq(customActions.orgId, org.org_id), eq(customActions.slug, "raced_slug")));
    expect(rows).toHaveLength(1);
    const log = (await (await app.request(`/api/activity?object_id=${rows[0]!.id}`, { headers: auth() })).json()) as { items: { action: string }[] };
    expect(log.items.map((e) => e.action)).toEqual(["custom_action.created"]);
    const all = (await (await app.request("/api/activity?action=custom_action.created&limit=100", { headers: auth() })).json()) as {
      items: { summary: { slug?: string } }[];
    };
    expect(all.items.filter((e) => e.summary.slug === "raced_slug")).toHaveLength(1);
  });

  test("roles: integrations:view may list but not create", async () => {
    const { memberships } = await import("../../src/db/schema/index.ts");
    const viewer = await seedOrg(app);
    await app.deps.db
      .update(memberships)
      .set({ roles: ["integrations:view"] })
      .where(eq(memberships.orgId, viewer.org_id));
    const viewerSession = await signIn(app, viewer.admin_email, viewer.password);
    expect((await app.request("/api/integrations/custom-actions", { headers: { authorization: `Bearer ${viewerSession}` } })).status).toBe(200);
    expect(
      (
        await app.request("/api/integrations/custom-actions", {
          json: { slug: "x", description: "x", method: "GET", url: `${base()}/x` },
          headers: { authorization: `Bearer ${viewerSession}` },
        })
      ).status,
    ).toBe(403);
    expect((await app.request("/api/integrations/custom-actions")).status).toBe(401);
  });
});

describe("calling a custom action over MCP", () => {
  const call = (name: string, args: unknown) => rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });

  test("GET sends arguments as the query, with the stored headers, Host kept", async () => {
    const { body } = await call("custom.lookup_order", { number: "A-17" });
    expect(body.result.isError).toBe(false);
    expect(JSON.parse(body.result.content[0].text)).toEqual({ status: 200, body: { ok: true, path: "/orders", query: { number: "A-17" } } });
    const last = received.at(-1)!;
    expect(last).toMatchObject({ method: "GET", path: "/orders?number=A-17", host: `api.partner.example:${partner.port}`, auth: "Bearer partner-secret-123" });
  });

  test("POST sends arguments as JSON; upstream 5xx is isError, redirects and oversized bodies are refused", async () => {
    for (const [slug, path] of [
      ["create_ticket", "/tickets"],
      ["broken", "/orders/broken"],
      ["redirecting", "/redirect"],
      ["big", "/big"],
    ] as const)
      expect((await create({ slug, description: slug, method: "POST", url: `${base()}${path}`, destructive: true })).status).toBe(201);
    app.clock.advance(SNAPSHOT_TTL_MS);
    const ok = await call("custom.create_ticket", { subject: "Hi" });
    expect(ok.body.result.isError).toBe(false);
    expect(received.at(-1)!.body).toBe('{"subject":"Hi"}');
    const broken = await call("custom.broken", {});
    expect(broken.body.result.isError).toBe(true);
    expect(JSON.parse(broken.body.result.content[0].text).status).toBe(502);
    const redirect = await call("custom.redirecting", {});
    expect(redirect.body.result.isError).toBe(true);
    expect(redirect.body.result.content[0].text).toContain("redirects are not followed");
    const big = await call("custom.big", {});
    expect(big.body.result.isError).toBe(true);
    expect(big.body.result.content[0].text).toContain("larger than 1048576 bytes");
  });

  test("the guard runs again on every call: a name that now resolves to a private address is refused", async () => {
    app.hosts.set("api.partner.example", ["10.0.0.8"]);
    try {
      const { body } = await call("custom.lookup_order", { number: "A-18" });
      expect(body.result.isError).toBe(true);
      expect(body.result.content[0].text).toContain("blocked address");
    } finally {
      app.hosts.set("api.partner.example", ["127.0.0.1"]);
    }
  });

  test("PATCH: changes what it names, the headers replaced as a whole; each change logged with its member, never a header value", async () => {
    const created = await create({
      slug: "patch_me",
      description: "Before",
      method: "GET",
      url: `${base()}/orders`,
      headers: { Authorization: "Bearer patch-secret-1" },
      destructive: false,
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const res = await app.request(`/api/integrations/custom-actions/${id}`, {
      method: "PATCH",
      json: { description: "After", headers: { "X-Key": "patch-secret-2" } },
      headers: auth(),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ description: "After", header_names: ["X-Key"] });
    const del = await app.request(`/api/integrations/custom-actions/${id}`, { method: "DELETE", headers: auth() });
    expect(del.status).toBe(204);
    const log = await app.request(`/api/activity?object_id=${id}`, { headers: auth() });
    const text = await log.text();
    for (const action of ["custom_action.created", "custom_action.updated", "custom_action.deleted"]) expect(text).toContain(action);
    expect(text).toContain('"kind":"member"');
    expect(text).not.toContain("patch-secret");
  });

  test("delete: the tool disappears, the encrypted headers are emptied, the audit record stays", async () => {
    const [row] = await app.deps.db.select().from(customActions).where(eq(customActions.slug, "lookup_order"));
    const del = await app.request(`/api/integrations/custom-actions/${row!.id}`, { method: "DELETE", headers: auth() });
    expect(del.status).toBe(204);
    const [after] = await app.deps.db.select().from(customActions).where(eq(customActions.id, row!.id));
    expect(after!.headers).toBe("");
    expect(after!.deletedAt).not.toBeNull();
    app.clock.advance(SNAPSHOT_TTL_MS);
    expect((await call("custom.lookup_order", { number: "A-19" })).body.error.code).toBe(-32601);
    const audit = await app.deps.db.select().from(actionExecutions).where(eq(actionExecutions.sourceId, row!.id));
    expect(audit.length).toBeGreaterThan(0);
    expect(audit.every((a) => a.tool === "custom.lookup_order" && a.sourceKind === "custom")).toBe(true);
    expect(JSON.stringify(audit)).not.toContain("partner-secret-123");
  });
});
