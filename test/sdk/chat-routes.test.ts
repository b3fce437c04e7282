// The chat endpoints' guards and limits (docs/interface.md 7.2): widget key 401,
// validation 400 with the field's path (exactly at the limit passes, one over fails), identity 403,
// unknown agent or no active agent 404, CORS, body size. The builtin provider answers (no network).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { CHAT_LIMITS } from "../../src/conversations/input.ts";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { agents, conversations, endUsers, orgs } from "../../src/db/schema/index.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { chat, type ChatOrg, seedChatOrg } from "../support/chat.ts";

let app: TestApp;
let org: ChatOrg;
let other: ChatOrg;
const PATHS = ["/api/sdk/chat", "/api/sdk/chat/stream"] as const;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedChatOrg(app);
  other = await seedChatOrg(app, { docs: false });
}, 30_000);
afterAll(() => app.close());

async function errorOf(res: Response) {
  const body = (await res.json()) as { error: { code: string; details?: { path: string }[] } };
  return { status: res.status, code: body.error.code, paths: (body.error.details ?? []).map((d) => d.path) };
}

const png = (bytes: number) => {
  const b = Buffer.alloc(bytes);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b);
  return `data:image/png;base64,${b.toString("base64")}`;
};

describe("widget key", () => {
  for (const path of PATHS)
    test(`${path}: missing, malformed or unknown key → 401`, async () => {
      expect((await app.request(path, { json: { message: "hi" } })).status).toBe(401);
      expect((await app.request(path, { json: { message: "hi" }, headers: { authorization: "Bearer nope" } })).status).toBe(401);
      expect((await app.request(path, { json: { message: "hi" }, headers: { authorization: `Bearer ab_live_${"x".repeat(32)}` } })).status).toBe(401);
      // The key is checked before the body: an invalid body without a key is still 401.
      expect((await app.request(path, { json: { message: "" } })).status).toBe(401);
    });
});

describe("validation: 400 with the field's path; exactly at the limit passes", () => {
  for (const path of PATHS) {
    test(`${path}: message 1..${CHAT_LIMITS.message}`, async () => {
      expect((await chat(app, org, { message: "x" }, path)).status).toBe(200);
      expect((await chat(app, org, { message: "x".repeat(CHAT_LIMITS.message) }, path)).status).toBe(200);
      expect(await errorOf(await chat(app, org, { message: "x".repeat(CHAT_LIMITS.message + 1) }, path))).toMatchObject({ status: 400, paths: ["/message"] });
      expect(await errorOf(await chat(app, org, { message: "" }, path))).toMatchObject({ status: 400, paths: ["/message"] });
      expect(await errorOf(await chat(app, org, { message: "   " }, path))).toMatchObject({ status: 400, paths: ["/message"] });
      expect(await errorOf(await chat(app, org, {}, path))).toMatchObject({ status: 400, paths: ["/message"] });
    });

    test(`${path}: behavior_context ≤ ${CHAT_LIMITS.behaviorContext}, mode enum, context entries, history`, async () => {
      expect((await chat(app, org, { message: "hi", behavior_context: "b".repeat(CHAT_LIMITS.behaviorContext) }, path)).status).toBe(200);
      expect(await errorOf(await chat(app, org, { message: "hi", behavior_context: "b".repeat(CHAT_LIMITS.behaviorContext + 1) }, path))).toMatchObject({
        status: 400,
        paths: ["/behavior_context"],
      });
      for (const mode of ["chat", "voice", "video"]) expect((await chat(app, org, { message: "hi", mode }, path)).status).toBe(200);
      expect(await errorOf(await chat(app, org, { message: "hi", mode: "telepathy" }, path))).toMatchObject({ status: 400, paths: ["/mode"] });
      expect(
        (
          await chat(
            app,
            org,
            { message: "hi", context: { page: { label: "Page", type: "url", value: "/billing" }, plan: { label: "Plan", value: { tier: 2 } } } },
            path,
          )
        ).status,
      ).toBe(200);
      const noLabel = await errorOf(await chat(app, org, { message: "hi", context: { page: { value: "/billing" } } }, path));
      expect(noLabel.status).toBe(400);
      expect(noLabel.paths[0]).toStartWith("/context");
      const tooMany = Object.fromEntries(Array.from({ length: CHAT_LIMITS.contextEntries + 1 }, (_, i) => [`k${i}`, { label: "l", value: i }]));
      expect((await chat(app, org, { message: "hi", context: tooMany }, path)).status).toBe(400);
      const history = Array.from({ length: CHAT_LIMITS.historyItems }, () => ({ role: "user", content: "earlier" }));
      expect((await chat(app, org, { message: "hi", conversation_history: history }, path)).status).toBe(200);
      expect(await errorOf(await chat(app, org, { message: "hi", conversation_history: [...history, { role: "user", content: "x" }] }, path))).toMatchObject({
        status: 400,
        paths: ["/conversation_history"],
      });
      expect(await errorOf(await chat(app, org, { message: "hi", conversation_history: [{ role: "system", content: "x" }] }, path))).toMatchObject({
        status: 400,
        paths: ["/conversation_history/0/role"],
      });
      expect(await errorOf(await chat(app, org, { message: "hi", custom_fields: [1, 2] }, path))).toMatchObject({ status: 400, paths: ["/custom_fields"] });
    });
  }

  test("session_id ≤ 128, context entries and labels, history text: each at its limit passes, one over fails", async () => {
    expect((await chat(app, org, { message: "hi", session_id: "s".repeat(CHAT_LIMITS.sessionId) })).status).toBe(200);
    expect(await errorOf(await chat(app, org, { message: "hi", session_id: "s".repeat(CHAT_LIMITS.sessionId + 1) }))).toMatchObject({
      status: 400,
      paths: ["/session_id"],
    });
    const entries = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, { label: "l", value: i }]));
    expect((await chat(app, org, { message: "hi", context: entries(CHAT_LIMITS.contextEntries) })).status).toBe(200);
    expect((await chat(app, org, { message: "hi", context: entries(CHAT_LIMITS.contextEntries + 1) })).status).toBe(400);
    expect((await chat(app, org, { message: "hi", context: { p: { label: "l".repeat(CHAT_LIMITS.contextLabel), value: 1 } } })).status).toBe(200);
    expect((await chat(app, org, { message: "hi", context: { p: { label: "l".repeat(CHAT_LIMITS.contextLabel + 1), value: 1 } } })).status).toBe(400);
    expect((await chat(app, org, { message: "hi", context: { ["k".repeat(CHAT_LIMITS.contextKey)]: { label: "l", value: 1 } } })).status).toBe(200);
    expect((await chat(app, org, { message: "hi", context: { ["k".repeat(CHAT_LIMITS.contextKey + 1)]: { label: "l", value: 1 } } })).status).toBe(400);
    expect((await chat(app, org, { message: "hi", conversation_history: [{ role: "user", content: "h".repeat(CHAT_LIMITS.historyText) }] })).status).toBe(200);
    expect(
      await errorOf(await chat(app, org, { message: "hi", conversation_history: [{ role: "user", content: "h".repeat(CHAT_LIMITS.historyText + 1) }] })),
    ).toMatchObject({ status: 400, paths: ["/conversation_history/0/content"] });
    // A context value nested past the stored-object bound is refused, not stored.
    let deep: unknown = 1;
    for (let i = 0; i < 10; i++) deep = { d: deep };
    expect((await chat(app, org, { message: "hi", context: { p: { label: "l", value: deep } } })).status).toBe(400);
  });

  test("/chat: images capped in count and size, data: URLs raster-only by magic bytes", async () => {
    const four = Array.from({ length: CHAT_LIMITS.images }, () => png(CHAT_LIMITS.imageBytes));
    const ok = await chat(app, org, { message: "see attached", images: four });
    expect(ok.status).toBe(200);
    expect(
      await errorOf(await chat(app, org, { message: "hi", images: [...four.slice(0, 3), "https://cdn.example.com/a.png", "https://cdn.example.com/b.png"] })),
    ).toMatchObject({ status: 400, paths: ["/images"] });
    expect(await errorOf(await chat(app, org, { message: "hi", images: [png(CHAT_LIMITS.imageBytes + 1)] }))).toMatchObject({
      status: 400,
      paths: ["/images/0"],
    });
    const svg = `data:image/svg+xml;base64,${Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>").toString("base64")}`;
    expect(await errorOf(await chat(app, org, { message: "hi", images: ["https://cdn.example.com/a.png", svg] }))).toMatchObject({
      status: 400,
      paths: ["/images/1"],
    });
    const disguised = `data:image/png;base64,${Buffer.from("<svg onload=alert(1)>").toString("base64")}`;
    expect(await errorOf(await chat(app, org, { message: "hi", images: [disguised] }))).toMatchObject({ status: 400, paths: ["/images/0"] });
  });

  test("a body over the chat cap is 413", async () => {
    const res = await chat(app, org, { message: "hi", behavior_context: "x".repeat(CHAT_LIMITS.bodyBytes) });
    expect(res.status).toBe(413);
  });
});

describe("agents", () => {
  test("an unknown agent_id, another org's agent, or a disabled agent → 404", async () => {
    const [disabled] = await app.deps.db.insert(agents).values({ orgId: org.org_id, name: "Off", status: "disabled" }).returning();
    for (const agent_id of ["nope", crypto.randomUUID(), other.agent_id, disabled!.id]) {
      const res = await chat(app, org, { message: "hi", agent_id });
      expect(res.status).toBe(404);
      // A pinned agent that is not there is an unknown resource, not "no active agent".
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error).toMatchObject({ code: "not_found", message: "No such agent in this organisation." });
    }
  });

  test("agent_id pins an inactive agent of the org", async () => {
    const [second] = await app.deps.db.insert(agents).values({ orgId: org.org_id, name: "Second", status: "inactive" }).returning();
    app.deps.invalidation.publish("org_settings", org.org_id); // written by hand: told as the service's writes tell (src/agents/turn-settings.ts)
    const res = await chat(app, org, { message: "hi", agent_id: second!.id });
    expect(((await res.json()) as any).agent_id).toBe(second!.id);
  });

  test("an org with no active agent → 404 no_active_agent on both endpoints, before any stream starts: the code and message /api/sdk/config gives", async () => {
    const lonely = await seedChatOrg(app, { docs: false });
    const first = await chat(app, lonely, { message: "hi" });
    const { session_id } = (await first.json()) as { session_id: string };
    const shape = (body: unknown) => {
      const { error } = body as { error: { code: string; message: string; details?: unknown } };
      return { code: error.code, message: error.message, details: error.details };
    };
    // No agent activated, and the active agent disabled: the same answer. (A session keeps the
    // agent that answered it while that agent is merely inactive; once disabled, it answers
    // nothing there either.)
    for (const status of ["inactive", "disabled"] as const) {
      await app.deps.db.update(agents).set({ status }).where(eq(agents.orgId, lonely.org_id));
      app.deps.invalidation.publish("org_settings", lonely.org_id); // as the service's writes do (src/agents/turn-settings.ts)
      const config = await app.request(`/api/sdk/config?org_id=${lonely.org_id}`);
      expect(config.status).toBe(404);
      const expected = shape(await config.json());
      expect(expected).toMatchObject({ code: "no_active_agent", message: "This organisation has no active agent." });
      for (const path of PATHS)
        for (const body of status === "disabled" ? [{ message: "hi" }, { message: "again", session_id }] : [{ message: "hi" }]) {
          const res = await chat(app, lonely, body, path);
          expect(res.status, `${status} ${path} ${JSON.stringify(body)}`).toBe(404);
          expect(res.headers.get("content-type")).toContain("application/json");
          expect(shape(await res.json())).toEqual(expected);
        }
    }
  });
});

describe("identity (docs/interface.md 5)", () => {
  let strict: ChatOrg;
  beforeAll(async () => {
    strict = await seedChatOrg(app, { docs: false });
    await app.deps.db.update(orgs).set({ identityVerification: true }).where(eq(orgs.id, strict.org_id));
  });
  const sign = (claims: Record<string, unknown>, secret = strict.identity_secret) =>
    new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setExpirationTime("10m").sign(new TextEncoder().encode(secret));

  for (const path of PATHS)
    test(`${path}: user_id without a token, or with a bad one → 403; a valid token → 200`, async () => {
      expect((await chat(app, strict, { message: "hi", user_id: "u1" }, path)).status).toBe(403);
      expect((await chat(app, strict, { message: "hi", user_id: "u1", user_token: await sign({ user_id: "u1" }, "wrong-secret") }, path)).status).toBe(403);
      expect((await chat(app, strict, { message: "hi", user_id: "u1", user_token: await sign({ user_id: "u2" }) }, path)).status).toBe(403);
      const ok = await chat(app, strict, { message: "hi", user_id: "u1", user_token: await sign({ user_id: "u1", plan: "pro" }) }, path);
      expect(ok.status).toBe(200);
      await ok.text();
      // Anonymous visitors need no token.
      expect((await chat(app, strict, { message: "hi" }, path)).status).toBe(200);
    });

  test("custom_fields merge into the customer's traits (the request wins); context into the session's", async () => {
    await chat(app, org, { message: "hi", user_id: "traits-user", custom_fields: { color: "red", size: 1 } });
    const res = await chat(app, org, { message: "hi", user_id: "traits-user", custom_fields: { size: 2 } });
    expect(res.status).toBe(200);
    const [user] = await app.deps.db.select().from(endUsers).where(eq(endUsers.externalId, "traits-user"));
    expect(user!.traits).toMatchObject({ color: "red", size: 2 });

    const first = (await (
      await chat(app, org, { message: "hi", context: { page: { label: "Page", value: "/a" }, cart: { label: "Cart", value: 1 } } })
    ).json()) as any;
    await chat(app, org, { message: "hi", session_id: first.session_id, context: { page: { label: "Page", value: "/b" } } });
    const [conversation] = await app.deps.db
      .select()
      .from(conversations)
      .where(eq(conversations.sessionHash, sha256Hex(first.session_id)));
    expect(conversation!.context).toEqual({ page: { label: "Page", value: "/b" }, cart: { label: "Cart", value: 1 } });
  });
});

describe("CORS", () => {
  test("preflight and exposed headers", async () => {
    const pre = await app.request("/api/sdk/chat/stream", {
      method: "OPTIONS",
      headers: { origin: "https://shop.example.com", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    expect(pre.status).toBeLessThan(300);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    const res = await chat(app, org, { message: "hi" }, "/api/sdk/chat/stream", { origin: "https://shop.example.com" });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-expose-headers")).toContain("X-Session-Id");
    await res.text();
  });
});

describe("idle timeout", () => {
  for (const path of PATHS)
    test(`${path} lifts the server's idle timeout for its request (a slow model must not be cut)`, async () => {
      const lifted: number[] = [];
      const server = { timeout: (_request: Request, seconds: number) => lifted.push(seconds), requestIP: () => null };
      const request = new Request(`http://localhost:3000${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${org.widget_key}`, "content-type": "application/json", "x-forwarded-for": "203.0.113.9" },
        body: JSON.stringify({ message: "hi" }),
      });
      const res = await app.handle(request, server as never);
      expect(res.status).toBe(200);
      await res.text();
      expect(lifted).toEqual([0]);
    });
});
