// The /api/sdk endpoints: widget keys, allowed origins, CORS, payloads and every limit
// at its boundary, tickets reaching the inbox.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, count, eq, isNull, or } from "drizzle-orm";
import { systemActor } from "../../src/kit/actor.ts";
import { customerEvents, endUsers, widgetKeys } from "../../src/db/schema/index.ts";
import { createWidgetKey, WIDGET_KEY_LIMITS } from "../../src/orgs/widget-access.ts";
import { SDK_LIMITS } from "../../src/sdk/schemas.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { sdk } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let call: ReturnType<typeof sdk>;
let admin: string;
/** How many events a customer has: what "countable per user" asks of the stored rows. */
const countEvents = async (endUserId: string) =>
  Number(
    (
      await app.deps.db
        .select({ n: count() })
        .from(customerEvents)
        .where(and(eq(customerEvents.orgId, org.org_id), eq(customerEvents.endUserId, endUserId)))
    )[0]!.n,
  );
const dash = (path: string, init: { method?: string; json?: unknown } = {}) => app.request(path, { ...init, headers: { authorization: `Bearer ${admin}` } });

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  call = sdk(app, org.widget_key);
  admin = await signIn(app, org.admin_email, org.password);
}, 30_000);
afterAll(() => app.close());

const EXPOSED = ["X-Session-Id", "X-Agent-Id", "X-Request-Id", "Retry-After"];
function expectCors(res: Response) {
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  const exposed = (res.headers.get("access-control-expose-headers") ?? "").split(/,\s*/).map((h) => h.toLowerCase());
  for (const h of EXPOSED) expect(exposed).toContain(h.toLowerCase());
}

describe("widget key", () => {
  const identify = { user_id: "u-key" };
  test("missing, malformed, unknown and revoked keys → 401 in our error shape", async () => {
    const cases: [string, Record<string, string>][] = [
      ["missing", {}],
      ["not bearer", { authorization: `Basic ${org.widget_key}` }],
      ["malformed", { authorization: "Bearer ab_live_" }],
      ["another prefix", { authorization: `Bearer ab_test_${org.widget_key.slice(8)}` }],
      ["unknown", { authorization: `Bearer ab_live_${"A".repeat(32)}` }],
    ];
    for (const [name, headers] of cases) {
      const res = await app.request("/api/sdk/users/identify", { headers, json: identify });
      expect([name, res.status]).toEqual([name, 401]);
      expectCors(res);
      const body = await res.json();
      expect(body.error).toMatchObject({ code: "invalid_widget_key" });
      expect(typeof body.error.request_id).toBe("string");
    }
  });

  test("a key is checked before the body: no key and a bad body is still 401", async () => {
    expect((await app.request("/api/sdk/events", { json: { events: "nope" } })).status).toBe(401);
  });

  test("a created key works at once; a revoked one is 401 at once", async () => {
    const created = await dash("/api/widget/keys", { json: { label: "staging" } });
    expect(created.status).toBe(201);
    const key = await created.json();
    expect(key).toMatchObject({ label: "staging", revoked_at: null });
    expect(key.key).toMatch(/^ab_live_[A-Za-z0-9_-]{32}$/);
    expect((await sdk(app, key.key)("/api/sdk/users/identify", identify)).status).toBe(200);
    const listed = await (await dash("/api/widget/keys")).json();
    expect(listed.keys.map((k: { id: string }) => k.id)).toContain(key.id);
    const revoked = await dash(`/api/widget/keys/${key.id}`, { method: "DELETE" });
    expect((await revoked.json()).revoked_at).not.toBeNull();
    expect((await sdk(app, key.key)("/api/sdk/users/identify", identify)).status).toBe(401);
    expect((await call("/api/sdk/users/identify", identify)).status).toBe(200);
    expect((await dash(`/api/widget/keys/${crypto.randomUUID()}`, { method: "DELETE" })).status).toBe(404);
  });

  test(`creates at the same moment never pass ${WIDGET_KEY_LIMITS.live} live keys`, async () => {
    const other = await seedOrg(app); // holds its one seeded key
    const results = await Promise.allSettled(
      Array.from({ length: WIDGET_KEY_LIMITS.live + 5 }, (_, i) => createWidgetKey(app.deps, other.org_id, systemActor("test"), `k${i}`)),
    );
    expect(results.filter((r) => r.status === "fulfilled").length).toBe(WIDGET_KEY_LIMITS.live - 1);
    for (const r of results.filter((r) => r.status === "rejected"))
      expect((r as PromiseRejectedResult).reason).toMatchObject({ status: 409, code: "too_many_keys" });
    const live = await app.deps.db
      .select({ n: count() })
      .from(widgetKeys)
      .where(and(eq(widgetKeys.orgId, other.org_id), isNull(widgetKeys.revokedAt)));
    expect(live[0]!.n).toBe(WIDGET_KEY_LIMITS.live);
  });

  test("a widget key opens no dashboard API", async () => {
    for (const path of ["/api/tickets", "/api/customers", "/api/agents", "/api/widget/keys", "/api/widget/identity"])
      expect([path, (await call(path)).status]).toEqual([path, 401]);
  });
});

describe("CORS on every /api/sdk response", () => {
  test("preflight of every endpoint, and of an unknown path: 204, methods, Authorization and Content-Type, max-age", async () => {
    for (const path of [
      "/api/sdk/users/identify",
      "/api/sdk/companies/identify",
      "/api/sdk/events",
      "/api/sdk/tickets/create",
      "/api/sdk/config",
      "/api/sdk/no-such-thing",
    ]) {
      const res = await app.request(path, {
        method: "OPTIONS",
        headers: { origin: "https://shop.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
      });
      expect([path, res.status]).toEqual([path, 204]);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-methods")).toContain("POST");
      const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
      expect(allowed).toContain("authorization");
      expect(allowed).toContain("content-type");
      expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    }
  });

  test("successes, errors and unknown paths carry the headers", async () => {
    const origin = { origin: "https://shop.example" };
    expectCors(await call("/api/sdk/users/identify", { user_id: "u-cors" }, origin));
    expectCors(await call("/api/sdk/users/identify", { user_id: 7 }, origin));
    expectCors(await app.request("/api/sdk/events", { headers: origin, json: {} }));
    const unknown = await call("/api/sdk/no-such-thing", { a: 1 }, origin);
    expect(unknown.status).toBe(404);
    expectCors(unknown);
    expectCors(await app.request("/api/sdk/config", { headers: origin }));
  });
});

describe("allowed origins", () => {
  test("listed origins pass, others are 403 origin_not_allowed, requests without Origin are unaffected", async () => {
    const set = await dash("/api/widget/origins", { method: "PUT", json: { allowed_origins: ["https://Shop.Example:443", "http://localhost:5173"] } });
    expect(await set.json()).toEqual({ allowed_origins: ["https://shop.example", "http://localhost:5173"] });
    const body = { user_id: "u-origin" };
    expect((await call("/api/sdk/users/identify", body, { origin: "https://shop.example" })).status).toBe(200);
    expect((await call("/api/sdk/users/identify", body, { origin: "http://localhost:5173" })).status).toBe(200);
    for (const origin of ["https://evil.example", "http://shop.example", "null", "https://shop.example.evil.example"]) {
      const res = await call("/api/sdk/users/identify", body, { origin });
      expect([origin, res.status]).toEqual([origin, 403]);
      expectCors(res);
      expect((await res.json()).error.code).toBe("origin_not_allowed");
    }
    expect((await call("/api/sdk/users/identify", body)).status).toBe(200);
    expect((await dash("/api/widget/origins", { method: "PUT", json: { allowed_origins: ["https://shop.example/path"] } })).status).toBe(400);
    expect(
      (await dash("/api/widget/origins", { method: "PUT", json: { allowed_origins: Array.from({ length: 51 }, (_, i) => `https://s${i}.example`) } })).status,
    ).toBe(400);
    expect(
      (await dash("/api/widget/origins", { method: "PUT", json: { allowed_origins: Array.from({ length: 50 }, (_, i) => `https://s${i}.example`) } })).status,
    ).toBe(200);
    expect(await (await dash("/api/widget/origins", { method: "PUT", json: { allowed_origins: [] } })).json()).toEqual({ allowed_origins: [] });
    expect((await call("/api/sdk/users/identify", body, { origin: "https://evil.example" })).status).toBe(200);
  });
});

describe("users and companies", () => {
  test("identify creates, then merges custom_fields (the request wins) and keeps what it does not name; an unverified answer is what it sent", async () => {
    const first = await (
      await call("/api/sdk/users/identify", { user_id: "u1", email: "U1@Example.com", name: "Una", custom_fields: { plan: "free", seats: 3 } })
    ).json();
    expect(first).toMatchObject({
      user_id: "u1",
      email: "u1@example.com",
      name: "Una",
      custom_fields: { plan: "free", seats: 3 },
      company: null,
      verified: false,
    });
    const second = await (await call("/api/sdk/users/identify", { user_id: "u1", company_id: "acme", custom_fields: { plan: "pro" } })).json();
    // The answer holds only what this request sent (anyone may claim u1); the record has it all.
    expect(second).toMatchObject({ id: first.id, email: null, name: "", custom_fields: { plan: "pro" }, company: { company_id: "acme" } });
    const [stored] = await app.deps.db
      .select()
      .from(endUsers)
      .where(and(eq(endUsers.orgId, org.org_id), eq(endUsers.externalId, "u1")));
    expect(stored).toMatchObject({ id: first.id, email: "u1@example.com", name: "Una", traits: { plan: "pro", seats: 3 }, companyId: second.company.id });
  });

  test("an identify that changes nothing writes nothing (widgets identify on every page load)", async () => {
    const body = { user_id: "u-same", email: "same@example.com", name: "Sam", custom_fields: { plan: "pro", seats: 2 } };
    const stored = async () =>
      (
        await app.deps.db
          .select()
          .from(endUsers)
          .where(and(eq(endUsers.orgId, org.org_id), eq(endUsers.externalId, "u-same")))
      )[0]!;
    expect((await call("/api/sdk/users/identify", body)).status).toBe(200);
    const first = await stored();
    app.clock.advance(5_000);
    expect((await call("/api/sdk/users/identify", body)).status).toBe(200);
    expect((await stored()).updatedAt).toEqual(first.updatedAt);
    app.clock.advance(5_000);
    expect((await call("/api/sdk/users/identify", { ...body, custom_fields: { seats: 3 } })).status).toBe(200);
    const changed = await stored();
    expect(changed.updatedAt).not.toEqual(first.updatedAt);
    expect(changed.traits).toEqual({ plan: "pro", seats: 3 });
  });

  test("anonymous is no user to identify; limits at the boundary", async () => {
    expect((await call("/api/sdk/users/identify", { user_id: "anonymous" })).status).toBe(400);
    expect((await call("/api/sdk/users/identify", { user_id: "x".repeat(256) })).status).toBe(200);
    expect((await call("/api/sdk/users/identify", { user_id: "x".repeat(257) })).status).toBe(400);
    expect((await call("/api/sdk/users/identify", { user_id: "u2", name: "n".repeat(200) })).status).toBe(200);
    expect((await call("/api/sdk/users/identify", { user_id: "u2", name: "n".repeat(201) })).status).toBe(400);
    expect((await call("/api/sdk/users/identify", { user_id: "u2", email: "not-an-email" })).status).toBe(400);
    // Unknown fields are dropped, not stored (Elysia normalises bodies to the schema): SDKs stay forward-compatible.
    const extra = await (await call("/api/sdk/users/identify", { user_id: "u2", extra: "dropped" })).json();
    expect(JSON.stringify(extra)).not.toContain("dropped");
    // custom_fields: the house bound for free-form objects (depth 8, 16 KiB).
    const deep = (n: number): Record<string, unknown> => (n === 1 ? { v: 1 } : { d: deep(n - 1) });
    expect((await call("/api/sdk/users/identify", { user_id: "u3", custom_fields: deep(8) })).status).toBe(200);
    const tooDeep = await call("/api/sdk/users/identify", { user_id: "u3", custom_fields: deep(9) });
    expect(tooDeep.status).toBe(400);
    expect((await tooDeep.json()).error.details[0].path).toBe("/custom_fields");
  });

  test("companies identify limits at the boundary", async () => {
    const post = (b: Record<string, unknown>) => call("/api/sdk/companies/identify", { company_id: "bounds", ...b });
    expect((await post({ company_id: "c".repeat(256) })).status).toBe(200);
    expect((await post({ company_id: "c".repeat(257) })).status).toBe(400);
    expect((await post({ company_id: "" })).status).toBe(400);
    expect((await post({ name: "n".repeat(200) })).status).toBe(200);
    expect((await post({ name: "n".repeat(201) })).status).toBe(400);
    const big = (bytes: number) => ({ p: "x".repeat(bytes - '{"p":""}'.length) });
    expect((await post({ custom_fields: big(16 * 1024) })).status).toBe(200);
    const over = await post({ custom_fields: big(16 * 1024 + 1) });
    expect(over.status).toBe(400);
    expect((await over.json()).error.details[0].path).toBe("/custom_fields");
  });

  test("companies identify creates and updates; a user is linked; company data is never read back", async () => {
    const res = await call("/api/sdk/companies/identify", { company_id: "globex", name: "Globex", custom_fields: { mrr: 5000 }, user_id: "u1" });
    expect(res.status).toBe(200);
    const company = await res.json();
    expect(company).toMatchObject({ company_id: "globex", user: { user_id: "u1", verified: false } });
    expect(JSON.stringify(company)).not.toContain("5000");
    const again = await (await call("/api/sdk/companies/identify", { company_id: "globex", custom_fields: { seats: 9 } })).json();
    expect(again).toEqual({ id: company.id, company_id: "globex" });
    const [user] = await app.deps.db
      .select()
      .from(endUsers)
      .where(and(eq(endUsers.orgId, org.org_id), eq(endUsers.externalId, "u1")));
    expect(user!.companyId).toBe(company.id);
  });
});

describe("events", () => {
  const event = (i: number) => ({ name: `e${i}`, properties: { i } });

  test(`a batch of ${SDK_LIMITS.eventsPerBatch} is stored in full and counted per user; one more is 400 and stores nothing`, async () => {
    const ok = await call("/api/sdk/events", {
      user_id: "eve",
      session_id: "s1",
      events: Array.from({ length: SDK_LIMITS.eventsPerBatch }, (_, i) => event(i)),
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ accepted: SDK_LIMITS.eventsPerBatch });
    const [eve] = await app.deps.db
      .select()
      .from(endUsers)
      .where(and(eq(endUsers.orgId, org.org_id), eq(endUsers.externalId, "eve")));
    expect(await countEvents(eve!.id)).toBe(SDK_LIMITS.eventsPerBatch);
    const over = await call("/api/sdk/events", { user_id: "eve", events: Array.from({ length: SDK_LIMITS.eventsPerBatch + 1 }, (_, i) => event(i)) });
    expect(over.status).toBe(400);
    expect(await countEvents(eve!.id)).toBe(SDK_LIMITS.eventsPerBatch);
    expect((await call("/api/sdk/events", { events: [] })).status).toBe(400);
  });

  test("each event is validated and a bad one names its index; the batch is stored whole or not at all", async () => {
    const before = (await app.deps.db.select().from(customerEvents).where(eq(customerEvents.orgId, org.org_id))).length;
    const res = await call("/api/sdk/events", { anonymous_id: "v9", events: [{ name: "ok" }, { name: "" }, { name: "ok2" }] });
    expect(res.status).toBe(400);
    expect((await res.json()).error.details[0].path).toBe("/events/1/name");
    expect((await app.deps.db.select().from(customerEvents).where(eq(customerEvents.orgId, org.org_id))).length).toBe(before);
  });

  test(`properties of ${SDK_LIMITS.eventPropertiesBytes} bytes pass, one more byte is 400`, async () => {
    const sized = (bytes: number) => ({ p: "x".repeat(bytes - '{"p":""}'.length) });
    expect(JSON.stringify(sized(4096)).length).toBe(4096);
    expect((await call("/api/sdk/events", { events: [{ name: "big", properties: sized(SDK_LIMITS.eventPropertiesBytes) }] })).status).toBe(200);
    const res = await call("/api/sdk/events", { events: [{ name: "big", properties: sized(SDK_LIMITS.eventPropertiesBytes + 1) }] });
    expect(res.status).toBe(400);
    expect((await res.json()).error.details[0].path).toBe("/events/0/properties");
  });

  test("event names, ids and occurred_at at their bounds", async () => {
    const post = (e: Record<string, unknown>) => call("/api/sdk/events", { events: [{ name: "n", ...e }] });
    expect((await post({ name: "n".repeat(100) })).status).toBe(200);
    expect((await post({ name: "n".repeat(101) })).status).toBe(400);
    expect((await post({ name: "a\u0000b" })).status).toBe(400);
    expect((await post({ anonymous_id: "a".repeat(128) })).status).toBe(200);
    expect((await post({ anonymous_id: "a".repeat(129) })).status).toBe(400);
    expect((await post({ session_id: "s".repeat(128) })).status).toBe(200);
    expect((await post({ session_id: "s".repeat(129) })).status).toBe(400);
    const at = (ms: number) => new Date(app.clock.now.getTime() + ms).toISOString();
    expect((await post({ occurred_at: at(300_000) })).status).toBe(200);
    const future = await post({ occurred_at: at(301_000) });
    expect(future.status).toBe(400);
    expect((await future.json()).error.details[0].path).toBe("/events/0/occurred_at");
    expect((await post({ occurred_at: "yesterday" })).status).toBe(400);
    expect((await post({ occurred_at: at(-86_400_000) })).status).toBe(200);
  });
});

describe("tickets", () => {
  test("201 with id, number and status; in the inbox at once, with its customer and source", async () => {
    const res = await call(
      "/api/sdk/tickets/create",
      { user_id: "u1", subject: "Cannot log in", message: "It says locked.", priority: "high", custom_fields: { browser: "firefox" } },
      { origin: "https://shop.example" },
    );
    expect(res.status).toBe(201);
    const ticket = await res.json();
    expect(ticket).toMatchObject({ status: "open", subject: "Cannot log in", priority: "high" });
    expect(Number.isInteger(ticket.number)).toBe(true);
    const seen = await (await dash(`/api/tickets/${ticket.id}`)).json();
    expect(JSON.stringify(seen)).toContain("It says locked.");
    expect(JSON.stringify(seen)).toContain("widget");
    const fromBackend = await (
      await call("/api/sdk/tickets/create", { email: "walk-in@example.com", name: "Walk In", subject: "Hello", message: "From our backend" })
    ).json();
    expect(JSON.stringify(await (await dash(`/api/tickets/${fromBackend.id}`)).json())).toContain('"api"');
    expect(fromBackend.number).toBe(ticket.number + 1);
  });

  test("session_id links the ticket to the chat it came from; an unknown one is 404, another customer's 403", async () => {
    const chat = await call("/api/sdk/chat", { message: "How do I reset my password?", user_id: "chatty" });
    expect(chat.status).toBe(200);
    const sessionId = (await chat.json()).session_id as string;
    const res = await call("/api/sdk/tickets/create", {
      user_id: "chatty",
      session_id: sessionId,
      subject: "Still stuck",
      message: "The reset mail never came.",
    });
    expect(res.status).toBe(201);
    const ticket = await res.json();
    expect(ticket.session_id).toBe(sessionId);
    const seen = await (await dash(`/api/tickets/${ticket.id}`)).json();
    expect(typeof (seen.ticket ?? seen).conversation_id).toBe("string");
    const unknown = await call("/api/sdk/tickets/create", { user_id: "chatty", session_id: "cs_no-such-session", subject: "s", message: "m" });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe("session_not_found");
    const other = await call("/api/sdk/tickets/create", { user_id: "someone-else", session_id: sessionId, subject: "s", message: "m" });
    expect(other.status).toBe(403);
    // A refused ticket leaves nothing behind: not even the customer its identity would have created.
    const refused = await call("/api/sdk/tickets/create", {
      user_id: "never-seen-before",
      session_id: sessionId,
      subject: "s",
      message: "m",
      custom_fields: { plan: "x" },
    });
    expect(refused.status).toBe(403);
    const left = await app.deps.db
      .select({ n: count() })
      .from(endUsers)
      .where(and(eq(endUsers.orgId, org.org_id), or(eq(endUsers.externalId, "never-seen-before"), eq(endUsers.claimedExternalId, "never-seen-before"))));
    expect(left[0]!.n).toBe(0);
  });

  test("a visitor who leaves an email on a ticket from their anonymous chat keeps their conversation", async () => {
    const chat = await call("/api/sdk/chat", { message: "How do I reset my password?" });
    const sessionId = (await chat.json()).session_id as string;
    const res = await call("/api/sdk/tickets/create", {
      email: "visitor@example.com",
      session_id: sessionId,
      subject: "Still stuck",
      message: "Please write to me.",
    });
    expect(res.status).toBe(201);
    const ticket = await res.json();
    const seen = (await (await dash(`/api/tickets/${ticket.id}`)).json()) as any;
    expect(typeof (seen.ticket ?? seen).conversation_id).toBe("string");
    // The same visitor, still anonymous: the chat goes on and its history is theirs.
    const next = await call("/api/sdk/chat", { message: "Any news?", session_id: sessionId });
    expect(next.status).toBe(200);
    const history = await app.request(`/api/sdk/conversations/${sessionId}`, { headers: { authorization: `Bearer ${org.widget_key}` } });
    expect(history.status).toBe(200);
    // An email proves nothing: it never takes over a session a customer already holds.
    const owned = (await (await call("/api/sdk/chat", { message: "Hello", user_id: "owner-of-session" })).json()).session_id as string;
    const taken = await call("/api/sdk/tickets/create", { email: "intruder@example.com", session_id: owned, subject: "s", message: "m" });
    expect(taken.status).toBe(403);
  });

  test("limits at the boundary", async () => {
    const post = (b: Record<string, unknown>) => call("/api/sdk/tickets/create", { subject: "s", message: "m", ...b });
    expect((await post({ subject: "s".repeat(250) })).status).toBe(201);
    expect((await post({ subject: "s".repeat(251) })).status).toBe(400);
    expect((await post({ message: "m".repeat(10_000) })).status).toBe(201);
    expect((await post({ message: "m".repeat(10_001) })).status).toBe(400);
    expect((await post({ subject: "" })).status).toBe(400);
    expect((await post({ priority: "critical" })).status).toBe(400);
  });
});
