// "Forgot your password?" and the reset page, through real requests and a real SMTP server on
// loopback: the same answer whether or not the address has an account, an email only to an
// account's address, its link stored only as SHA-256, used once, dead after an hour or when a newer
// one is issued; limited per address; every session of the member signed out; without SMTP the
// page says how the operator resets a password.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createSender } from "../../src/compose.ts";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { members, passwordResets } from "../../src/db/schema/index.ts";
import { adminResetPassword, FORGOT_LIMITS } from "../../src/orgs/password-reset.ts";
import { FORGOT_SENT } from "../../src/orgs/password-pages.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { emailEnv } from "../support/email.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let org: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await createTestApp(emailEnv(smtp.url));
  sender = createSender(app.deps);
  org = await seedOrg(app);
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
});

const forgot = (email: string, ip = "198.51.100.7") => app.request("/forgot-password", { form: { email }, ip, headers: { origin: app.deps.config.baseUrl } });
const reset = (path: string, password: string) => app.request(path, { form: { password }, headers: { origin: app.deps.config.baseUrl } });
const linkIn = (text: string) => /\/reset-password\/(svc_pwr_[A-Za-z0-9_-]+)/.exec(text)?.[0];

describe("forgot password", () => {
  test("the same answer for an account and for no account; only the account gets an email, whose link works once", async () => {
    const known = await forgot(org.admin_email, "198.51.100.1");
    const unknown = await forgot("nobody@nowhere.example", "198.51.100.1");
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const [a, b] = [await known.text(), await unknown.text()];
    expect(a).toContain(FORGOT_SENT);
    expect(a).toBe(b);
    await sender.tick();
    expect(smtp.received.filter((m) => m.to.includes("nobody@nowhere.example"))).toEqual([]);
    const mails = smtp.received.filter((m) => m.to.includes(org.admin_email));
    expect(mails).toHaveLength(1);
    const path = linkIn(mails[0]!.parts.get("text/plain")!)!;
    expect(path).toBeDefined();
    const token = path.split("/").pop()!;
    // Only the SHA-256 is stored.
    const rows = await app.deps.db.select().from(passwordResets);
    expect(rows.some((r) => r.tokenHash === sha256Hex(token))).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(token);

    const bearer = await signIn(app, org.admin_email, org.password);
    expect((await app.request(path)).status).toBe(200);
    const short = await reset(path, "1234567");
    expect(short.status).toBe(400);
    expect(await short.text()).toContain('aria-invalid="true"');
    const done = await reset(path, "reset-password-1");
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/signin?reset=1");
    expect(await (await app.request("/signin?reset=1")).text()).toContain("Your password is set.");
    // Every session ended; the new password signs in.
    expect((await app.request("/api/me", { headers: { authorization: `Bearer ${bearer}` } })).status).toBe(401);
    expect((await app.request("/api/auth/session", { json: { email: org.admin_email, password: "reset-password-1" } })).status).toBe(200);
    // Used once.
    expect((await reset(path, "reset-password-2")).status).toBe(410);
    expect((await app.request(path)).status).toBe(410);
  });

  test("a link is dead after an hour, and when a newer one is issued", async () => {
    const first = (await adminResetPassword(app.deps, { email: org.admin_email })) as { link: string };
    const second = (await adminResetPassword(app.deps, { email: org.admin_email })) as { link: string };
    expect((await reset(new URL(first.link).pathname, "replaced-password")).status).toBe(410);
    app.clock.advance(3600_000 - 1000);
    expect((await app.request(new URL(second.link).pathname)).status).toBe(200);
    app.clock.advance(1000);
    expect((await reset(new URL(second.link).pathname, "expired-password")).status).toBe(410);
    expect((await app.request("/api/auth/session", { json: { email: org.admin_email, password: "expired-password" } })).status).toBe(401);
  });

  test(`limited to ${FORGOT_LIMITS.perAccount.limit} per address per hour, then 429 with Retry-After`, async () => {
    const other = await seedOrg(app);
    for (let i = 0; i < FORGOT_LIMITS.perAccount.limit; i++) expect((await forgot(other.admin_email, `203.0.113.${i + 1}`)).status).toBe(200);
    const over = await forgot(other.admin_email, "203.0.113.99");
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toMatch(/^\d+$/);
    // The same for an address with no account: the limit does not tell them apart.
    for (let i = 0; i < FORGOT_LIMITS.perAccount.limit; i++) expect((await forgot("ghost@nowhere.example", `203.0.114.${i + 1}`)).status).toBe(200);
    expect((await forgot("ghost@nowhere.example", "203.0.114.99")).status).toBe(429);
  });

  test("bad input and cross-site posts are refused with a page, never a 5xx", async () => {
    expect((await forgot("")).status).toBe(400);
    expect((await app.request("/forgot-password", { form: { email: "x@example.com" }, headers: { origin: "https://evil.example" } })).status).toBe(403);
    expect((await app.request(`/reset-password/${"x".repeat(201)}`)).status).toBe(400);
    expect((await app.request("/reset-password/svc_pwr_forged")).status).toBe(410);
    expect((await reset("/reset-password/svc_pwr_forged", "whatever-password")).status).toBe(410);
    const [member] = await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, org.admin_email));
    expect(member).toBeDefined();
  });
});

describe("without SMTP", () => {
  test("the page says how the operator resets a password, and sends nothing", async () => {
    const plain = await createTestApp();
    try {
      const page = await (await plain.request("/forgot-password")).text();
      expect(page).toContain("user reset-password");
      expect(page).not.toContain('action="/forgot-password"');
      expect(await (await plain.request("/signin")).text()).toContain('href="/forgot-password"');
    } finally {
      await plain.close();
    }
  });
});
