// Identity verification of widget requests (docs/interface.md 5, docs/interface.md D).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { customerEvents, endUsers, tickets } from "../../src/db/schema/index.ts";
import { executeAdmin, parseCommand, UsageError } from "../../src/cli/commands.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { runCli, tempDir } from "../support/process.ts";
import { sdk, unsignedToken, userToken } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let call: ReturnType<typeof sdk>;
let admin: string;

const identityApi = (method: string, path = "", json?: unknown) =>
  app.request(`/api/widget/identity${path}`, { method, headers: { authorization: `Bearer ${admin}` }, ...(json !== undefined ? { json } : {}) });

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  call = sdk(app, org.widget_key);
  admin = await signIn(app, org.admin_email, org.password);
  expect((await identityApi("PUT", "", { enabled: true })).status).toBe(200);
}, 30_000);
afterAll(() => app.close());

const token = (claims: Record<string, unknown>, options: Parameters<typeof userToken>[2] = {}) =>
  userToken(org.identity_secret, claims, { now: app.clock.now, ...options });

describe("verification on", () => {
  test("a valid token: 200, verified, trusted claims win over the request's values", async () => {
    const res = await call("/api/sdk/users/identify", {
      user_id: "alice",
      user_token: await token({ user_id: "alice", email: "alice@corp.example", name: "Alice", plan: "enterprise", role: "admin", company_id: "corp" }),
      email: "mallory@evil.example",
      name: "Not Alice",
      company_id: "evil",
      custom_fields: { plan: "free", colour: "blue" },
    });
    expect(res.status).toBe(200);
    const user = await res.json();
    expect(user).toMatchObject({ user_id: "alice", email: "alice@corp.example", name: "Alice", verified: true, company: { company_id: "corp" } });
    expect(user.custom_fields).toEqual({ plan: "enterprise", role: "admin", colour: "blue" });
  });

  const refusals: [string, () => Promise<Record<string, unknown>>, string][] = [
    ["missing token", async () => ({ user_id: "alice" }), "user_token_required"],
    [
      "expired (beyond the 60 s skew)",
      async () => ({ user_id: "alice", user_token: await token({ user_id: "alice" }, { expiresInSeconds: -61 }) }),
      "user_token_expired",
    ],
    [
      "wrong secret",
      async () => ({ user_id: "alice", user_token: await userToken("not-the-secret-of-this-org-at-all", { user_id: "alice" }, { now: app.clock.now }) }),
      "user_token_invalid",
    ],
    [
      "alg none",
      async () => ({ user_id: "alice", user_token: unsignedToken({ user_id: "alice", exp: Math.floor(app.clock.now.getTime() / 1000) + 300 }) }),
      "user_token_invalid",
    ],
    ["HS512 with the right secret", async () => ({ user_id: "alice", user_token: await token({ user_id: "alice" }, { alg: "HS512" }) }), "user_token_invalid"],
    ["mismatched user_id", async () => ({ user_id: "alice", user_token: await token({ user_id: "bob" }) }), "user_token_mismatch"],
    ["no exp", async () => ({ user_id: "alice", user_token: await token({ user_id: "alice" }, { exp: false }) }), "user_token_invalid"],
    ["not a JWT", async () => ({ user_id: "alice", user_token: "garbage" }), "user_token_invalid"],
  ];
  for (const [name, body, code] of refusals) {
    test(`${name} → 403 ${code}`, async () => {
      const res = await call("/api/sdk/users/identify", await body());
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe(code);
    });
  }

  test("exp within the 60 s skew still verifies", async () => {
    const res = await call("/api/sdk/users/identify", { user_id: "alice", user_token: await token({ user_id: "alice" }, { expiresInSeconds: -59 }) });
    expect(res.status).toBe(200);
  });

  test("a token of 4096 characters is read (and refused as no JWT); 4097 is a 400 before any work", async () => {
    const exact = await call("/api/sdk/users/identify", { user_id: "alice", user_token: "x".repeat(4096) });
    expect(exact.status).toBe(403);
    expect((await exact.json()).error.code).toBe("user_token_invalid");
    const over = await call("/api/sdk/users/identify", { user_id: "alice", user_token: "x".repeat(4097) });
    expect(over.status).toBe(400);
    expect((await over.json()).error.details[0].path).toBe("/user_token");
  });

  test("every keyed endpoint refuses a user_id without a token", async () => {
    const cases: [string, unknown][] = [
      ["/api/sdk/users/identify", { user_id: "alice" }],
      ["/api/sdk/companies/identify", { company_id: "corp", user_id: "alice" }],
      ["/api/sdk/events", { user_id: "alice", events: [{ name: "x" }] }],
      ["/api/sdk/events", { events: [{ name: "x", user_id: "alice" }] }],
      ["/api/sdk/tickets/create", { user_id: "alice", subject: "s", message: "m" }],
    ];
    for (const [path, body] of cases) {
      const res = await call(path, body);
      expect([path, res.status]).toEqual([path, 403]);
    }
  });

  test("anonymous requests need no token", async () => {
    expect((await call("/api/sdk/events", { anonymous_id: "v1", events: [{ name: "page_viewed" }] })).status).toBe(200);
    expect((await call("/api/sdk/tickets/create", { user_id: "anonymous", subject: "s", message: "m" })).status).toBe(201);
  });
});

describe("rotation", () => {
  test("after a rotation the previous secret verifies until cleared; the new one is shown once", async () => {
    const old = org.identity_secret;
    const rotated = await identityApi("POST", "/rotate");
    expect(rotated.status).toBe(200);
    const body = await rotated.json();
    expect(body).toMatchObject({ enabled: true, has_previous_secret: true });
    const fresh = body.identity_secret as string;
    expect(fresh).not.toBe(old);
    expect(JSON.stringify(await (await identityApi("GET")).json())).not.toContain(fresh);

    const withOld = () => userToken(old, { user_id: "alice" }, { now: app.clock.now });
    expect((await call("/api/sdk/users/identify", { user_id: "alice", user_token: await withOld() })).status).toBe(200);
    expect(
      (await call("/api/sdk/users/identify", { user_id: "alice", user_token: await userToken(fresh, { user_id: "alice" }, { now: app.clock.now }) })).status,
    ).toBe(200);

    expect(await (await identityApi("DELETE", "/previous")).json()).toEqual({ enabled: true, has_previous_secret: false, previous_secret_expires_at: null });
    const res = await call("/api/sdk/users/identify", { user_id: "alice", user_token: await withOld() });
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe("user_token_invalid");
    expect(
      (await call("/api/sdk/users/identify", { user_id: "alice", user_token: await userToken(fresh, { user_id: "alice" }, { now: app.clock.now }) })).status,
    ).toBe(200);
    org.identity_secret = fresh;
  });

  test("without clearing, the previous secret verifies for 24 hours after the rotation, then is refused; the API says until when", async () => {
    const old = org.identity_secret;
    const rotatedAt = app.clock.now.getTime();
    const body = await (await identityApi("POST", "/rotate")).json();
    const fresh = body.identity_secret as string;
    const until = new Date(rotatedAt + 24 * 3600_000).toISOString();
    expect(body).toMatchObject({ has_previous_secret: true, previous_secret_expires_at: until });
    expect(await (await identityApi("GET")).json()).toEqual({ enabled: true, has_previous_secret: true, previous_secret_expires_at: until });
    const identify = async (secret: string) =>
      call("/api/sdk/users/identify", { user_id: "alice", user_token: await userToken(secret, { user_id: "alice" }, { now: app.clock.now }) });

    app.clock.advance(24 * 3600_000 - 1); // the last millisecond of the overlap
    expect((await identify(old)).status).toBe(200);
    app.clock.advance(1); // the overlap is over
    const refused = await identify(old);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe("user_token_invalid");
    expect((await identify(fresh)).status).toBe(200);
    expect(await (await identityApi("GET")).json()).toEqual({ enabled: true, has_previous_secret: false, previous_secret_expires_at: null });
    org.identity_secret = fresh;
  });

  test("every settings change is in the activity log, with the member who made it and never the secret", async () => {
    const res = await app.request("/api/activity?object_type=org", { headers: { authorization: `Bearer ${admin}` } });
    const items = (await res.json()).items as { action: string; actor: { kind: string } }[];
    const actions = items.map((i) => i.action);
    for (const action of ["identity_verification.switched", "identity_secret.rotated", "identity_secret.previous_cleared"]) expect(actions).toContain(action);
    expect(items.every((i) => i.actor.kind === "member")).toBe(true);
    expect(JSON.stringify(items)).not.toContain(org.identity_secret);
  });

  test("the settings API needs org:manage", async () => {
    expect((await app.request("/api/widget/identity")).status).toBe(401);
    expect((await app.request("/api/widget/identity/rotate", { method: "POST", headers: { authorization: `Bearer ${org.widget_key}` } })).status).toBe(401);
  });
});

describe("verification off: an unverified identify of a verified customer's user_id reaches none of their data", () => {
  test("kept apart as an unverified visitor", async () => {
    expect(await (await identityApi("PUT", "", { enabled: false })).json()).toMatchObject({ enabled: false });
    const verified = await (
      await call("/api/sdk/users/identify", {
        user_id: "carol",
        user_token: await token({ user_id: "carol", email: "carol@corp.example", name: "Carol" }),
        custom_fields: { secret_note: "vip" },
      })
    ).json();
    expect(verified.verified).toBe(true);
    const ticket = await (
      await call("/api/sdk/tickets/create", { user_id: "carol", user_token: await token({ user_id: "carol" }), subject: "Invoice", message: "private" })
    ).json();
    await call("/api/sdk/events", { user_id: "carol", user_token: await token({ user_id: "carol" }), events: [{ name: "paid" }] });

    // A bad token is still refused when verification is off.
    expect(
      (await call("/api/sdk/users/identify", { user_id: "carol", user_token: await userToken("wrong-secret-wrong-secret", { user_id: "carol" }) })).status,
    ).toBe(403);

    const res = await call("/api/sdk/users/identify", { user_id: "carol", email: "mallory@evil.example" });
    expect(res.status).toBe(200);
    const impostor = await res.json();
    expect(impostor.verified).toBe(false);
    expect(impostor.id).not.toBe(verified.id);
    expect(impostor.email).toBe("mallory@evil.example");
    expect(JSON.stringify(impostor)).not.toContain("vip");
    expect(JSON.stringify(impostor)).not.toContain("carol@corp.example");

    // Writes by the impostor land on the visitor, never on Carol.
    await call("/api/sdk/events", { user_id: "carol", events: [{ name: "fake" }] });
    const fake = await (await call("/api/sdk/tickets/create", { user_id: "carol", subject: "Refund me", message: "x" })).json();
    const [carol] = await app.deps.db
      .select()
      .from(endUsers)
      .where(and(eq(endUsers.orgId, org.org_id), eq(endUsers.externalId, "carol")));
    expect(carol).toMatchObject({ id: verified.id, email: "carol@corp.example", verified: true, traits: { secret_note: "vip" } });
    const carolTickets = await app.deps.db.select().from(tickets).where(eq(tickets.endUserId, verified.id));
    expect(carolTickets.map((t) => t.id)).toEqual([ticket.id]);
    const [fakeRow] = await app.deps.db.select().from(tickets).where(eq(tickets.id, fake.id));
    expect(fakeRow).toMatchObject({ endUserId: impostor.id, verified: false });
    const carolEvents = await app.deps.db.select().from(customerEvents).where(eq(customerEvents.endUserId, verified.id));
    expect(carolEvents.map((e) => e.name)).toEqual(["paid"]);
    const visitorEvents = await app.deps.db.select().from(customerEvents).where(eq(customerEvents.endUserId, impostor.id));
    expect(visitorEvents.map((e) => e.name)).toEqual(["fake"]);

    // Carol's chat is hers: the visitor presenting its session id is refused.
    const chat = await call("/api/sdk/chat", { message: "What is my invoice?", user_id: "carol", user_token: await token({ user_id: "carol" }) });
    expect(chat.status).toBe(200);
    const sessionId = (await chat.json()).session_id as string;
    const hijack = await call("/api/sdk/chat", { message: "Show me the conversation", user_id: "carol", session_id: sessionId });
    expect(hijack.status).toBe(403);
    expect((await call("/api/sdk/tickets/create", { user_id: "carol", session_id: sessionId, subject: "s", message: "m" })).status).toBe(403);

    // The same claim again finds the same visitor (one per claimed id), still apart.
    const again = await (await call("/api/sdk/users/identify", { user_id: "carol" })).json();
    expect(again.id).toBe(impostor.id);
  });

  test("a user first identified unverified is moved aside by the first verified identify", async () => {
    const early = await (await call("/api/sdk/users/identify", { user_id: "dave", custom_fields: { planted: true } })).json();
    expect(early.verified).toBe(false);
    const planted = await (await call("/api/sdk/tickets/create", { user_id: "dave", subject: "planted", message: "x" })).json();
    const proven = await (await call("/api/sdk/users/identify", { user_id: "dave", user_token: await token({ user_id: "dave" }) })).json();
    expect(proven.verified).toBe(true);
    expect(proven.id).not.toBe(early.id);
    expect(proven.custom_fields).toEqual({});
    const [row] = await app.deps.db.select().from(tickets).where(eq(tickets.id, planted.id));
    expect(row!.endUserId).toBe(early.id);
    const [aside] = await app.deps.db.select().from(endUsers).where(eq(endUsers.id, early.id));
    expect(aside).toMatchObject({ externalId: null, claimedExternalId: "dave", verified: false });
  });
});

test("a customer deleted after a visitor claimed their id: the next verified identify still succeeds, data apart", async () => {
  await call("/api/sdk/users/identify", { user_id: "frank", user_token: await token({ user_id: "frank" }) });
  const visitor = await (await call("/api/sdk/users/identify", { user_id: "frank" })).json();
  await app.deps.db.delete(endUsers).where(and(eq(endUsers.orgId, org.org_id), eq(endUsers.externalId, "frank")));
  const unverified = await (await call("/api/sdk/users/identify", { user_id: "frank", custom_fields: { planted: 1 } })).json();
  const res = await call("/api/sdk/users/identify", { user_id: "frank", user_token: await token({ user_id: "frank" }) });
  expect(res.status).toBe(200);
  const proven = await res.json();
  expect(new Set([visitor.id, unverified.id, proven.id]).size).toBe(3);
  expect(proven).toMatchObject({ verified: true, custom_fields: {} });
});

describe("CLI: org identity", () => {
  test("switches verification on and off", async () => {
    const on = parseCommand(["org", "identity", "--org", org.org_id, "--on"]);
    expect(JSON.parse(await executeAdmin(app.deps, on as never))).toEqual({ org_id: org.org_id, identity_verification: true });
    expect((await call("/api/sdk/users/identify", { user_id: "erin" })).status).toBe(403);
    const off = parseCommand(["org", "identity", "--org", org.org_id, "--off"]);
    expect(JSON.parse(await executeAdmin(app.deps, off as never))).toEqual({ org_id: org.org_id, identity_verification: false });
    expect((await call("/api/sdk/users/identify", { user_id: "erin" })).status).toBe(200);
  });

  test("the real command line: a usage error exits 2 and names the problem; help lists the command", async () => {
    const bad = await runCli(["org", "identity", "--org", crypto.randomUUID()], { DATA_DIR: tempDir() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/exactly one of --on and --off/);
    expect((await runCli(["--help"], {})).stdout).toContain("org identity --org <org_id> --on|--off");
  }, 30_000);

  test("usage errors", () => {
    expect(() => parseCommand(["org", "identity", "--org", org.org_id])).toThrow(UsageError);
    expect(() => parseCommand(["org", "identity", "--org", "42", "--on"])).toThrow(/--org must be/);
    expect(() => parseCommand(["org", "identity", "--org", org.org_id, "--on", "--off"])).toThrow(/exactly one/);
  });
});
