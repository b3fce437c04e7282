// A member's own account, as a browser without JavaScript uses it: the display name and avatar
// sign their next reply (the widget's live event and the email's From, through a real SMTP server
// on loopback); the avatar must be https; changing the password needs the current one and signs
// out every other session; "sign out everywhere else" keeps only this one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, desc, eq } from "drizzle-orm";
import { createSender } from "../../src/compose.ts";
import { createSession } from "../../src/auth/sessions.ts";
import { members, ticketEvents } from "../../src/db/schema/index.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { emailEnv } from "../support/email.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { seedCustomer } from "../inbox/helpers.ts";
import { adminOf, get, type Member, post, withFlash } from "./helpers.ts";

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let admin: Member;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await createTestApp(emailEnv(smtp.url));
  sender = createSender(app.deps);
  admin = await adminOf(app, "Account Org");
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
});

const idOf = async (email: string) => (await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, email)))[0]!.id;

describe("profile", () => {
  test("the display name and avatar sign the next reply: in the widget's event and the email From", async () => {
    const page = await get(app, admin, "/dashboard/account");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('id="f-name"');
    const saved = await post(app, admin, "/dashboard/account/profile", { name: "  Robin   Lee ", avatar_url: "https://cdn.example/robin.png" });
    expect(saved.status).toBe(303);
    const again = await (await get(app, withFlash(admin, saved), "/dashboard/account")).text();
    expect(again).toContain("Profile saved.");
    expect(again).toContain('value="Robin Lee"');

    const token = await signIn(app, admin.email, admin.password);
    const customer = await seedCustomer(app, admin.orgId, { email: "sam@customer.example", name: "Sam" });
    const created = await app.request("/api/tickets", {
      headers: { authorization: `Bearer ${token}` },
      json: { customer_id: customer.id, subject: "Your order", message: "It shipped." },
    });
    expect(created.status).toBe(201);
    const ticket = (await created.json()) as { id: string };
    const [event] = await app.deps.db
      .select()
      .from(ticketEvents)
      .where(and(eq(ticketEvents.ticketId, ticket.id), eq(ticketEvents.type, "message")))
      .orderBy(desc(ticketEvents.seq))
      .limit(1);
    expect(event!.data.author).toEqual({ name: "Robin Lee", avatar_url: "https://cdn.example/robin.png" });
    await sender.tick();
    const mail = smtp.received.find((m) => m.to.includes("sam@customer.example"));
    expect(mail!.headers.get("from")).toMatch(/^"?Robin Lee at Account Org"? </);
  });

  test("an avatar that is not https, or a name too long, is refused next to its field; nothing is saved", async () => {
    for (const avatar of ["http://cdn.example/a.png", "javascript:alert(1)", "https://user:pw@cdn.example/a.png", `https://cdn.example/${"a".repeat(2049)}`]) {
      const res = await post(app, admin, "/dashboard/account/profile", { name: "Robin", avatar_url: avatar });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('id="f-avatar_url-error"');
    }
    const long = await post(app, admin, "/dashboard/account/profile", { name: "x".repeat(201), avatar_url: "" });
    expect(long.status).toBe(400);
    expect(await long.text()).toContain('id="f-name-error"');
    const ok = await post(app, admin, "/dashboard/account/profile", { name: "x".repeat(200), avatar_url: "" });
    expect(ok.status).toBe(303);
    const [row] = await app.deps.db.select().from(members).where(eq(members.email, admin.email));
    expect(row!.name).toBe("x".repeat(200));
    expect(row!.avatarUrl).toBeNull();
  });
});

describe("password and sessions", () => {
  test("a wrong current password is refused; the right one changes it and signs out every other session", async () => {
    const memberId = await idOf(admin.email);
    const elsewhere = await createSession(app.deps, memberId);
    const other: Member = { ...admin, cookie: `svc_session=${elsewhere.token}` };
    expect((await get(app, other, "/dashboard/account")).status).toBe(200);

    const wrong = await post(app, admin, "/dashboard/account/password", { current_password: "not it at all", new_password: "a-new-password-1" });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('id="f-current_password-error"');
    const short = await post(app, admin, "/dashboard/account/password", { current_password: admin.password, new_password: "1234567" });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain('id="f-new_password-error"');
    expect((await get(app, other, "/dashboard/account")).status).toBe(200);

    const changed = await post(app, admin, "/dashboard/account/password", { current_password: admin.password, new_password: "a-new-password-1" });
    expect(changed.status).toBe(303);
    // The other session is signed out; this one is not.
    const gone = await get(app, other, "/dashboard/account");
    expect(gone.status).toBe(303);
    expect(gone.headers.get("location")).toStartWith("/signin");
    expect((await get(app, admin, "/dashboard/account")).status).toBe(200);
    // The old password no longer signs in; the new one does.
    expect((await app.request("/api/auth/session", { json: { email: admin.email, password: admin.password } })).status).toBe(401);
    expect((await app.request("/api/auth/session", { json: { email: admin.email, password: "a-new-password-1" } })).status).toBe(200);
    admin = { ...admin, password: "a-new-password-1" };
  });

  test("sign out everywhere else: the list shows each session, and only this one stays", async () => {
    const memberId = await idOf(admin.email);
    const a = await createSession(app.deps, memberId);
    const b = await createSession(app.deps, memberId);
    const page = await (await get(app, admin, "/dashboard/account")).text();
    expect(page).toContain("this session");
    expect(page).toContain("Sign out everywhere else");
    const res = await post(app, admin, "/dashboard/account/sessions/sign-out", { go: "1" });
    expect(res.status).toBe(303);
    for (const s of [a, b]) expect((await get(app, { ...admin, cookie: `svc_session=${s.token}` }, "/dashboard/account")).status).toBe(303);
    expect((await get(app, admin, "/dashboard/account")).status).toBe(200);
    expect(await (await get(app, admin, "/dashboard/account")).text()).toContain("This is your only session.");
  });

  test("a cross-site post changes nothing", async () => {
    const res = await app.request("/dashboard/account/profile", {
      form: { name: "Evil", avatar_url: "" },
      headers: { cookie: admin.cookie, origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
    const [row] = await app.deps.db.select().from(members).where(eq(members.email, admin.email));
    expect(row!.name).not.toBe("Evil");
  });
});

describe("the account API", () => {
  test("profile, password and sessions through JSON, with the same checks", async () => {
    const token = await signIn(app, admin.email, admin.password);
    const auth = { authorization: `Bearer ${token}` };
    const other = await signIn(app, admin.email, admin.password);
    expect((await app.request("/api/me/profile", { headers: auth })).status).toBe(200);
    const bad = await app.request("/api/me/profile", { method: "PATCH", headers: auth, json: { name: "Robin", avatar_url: "http://cdn.example/a.png" } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { details: { path: string }[] } }).error.details.map((d) => d.path)).toEqual(["/avatar_url"]);
    const ok = await app.request("/api/me/profile", { method: "PATCH", headers: auth, json: { name: "Robin API", avatar_url: null } });
    expect(await ok.json()).toEqual({ email: admin.email, name: "Robin API", avatar_url: null, language: null });

    const sessions = (await (await app.request("/api/me/sessions", { headers: auth })).json()) as { items: { current: boolean }[] };
    expect(sessions.items.filter((s) => s.current)).toHaveLength(1);
    expect(JSON.stringify(sessions)).not.toContain(token);
    const wrong = await app.request("/api/me/password", {
      method: "PUT",
      headers: auth,
      json: { current_password: "nope-nope", new_password: "api-password-1" },
    });
    expect(wrong.status).toBe(401);
    const changed = await app.request("/api/me/password", {
      method: "PUT",
      headers: auth,
      json: { current_password: admin.password, new_password: "api-password-1" },
    });
    expect(changed.status).toBe(200);
    expect(((await changed.json()) as { signed_out: number }).signed_out).toBeGreaterThanOrEqual(2);
    expect((await app.request("/api/me", { headers: { authorization: `Bearer ${other}` } })).status).toBe(401);
    expect((await app.request("/api/me", { headers: auth })).status).toBe(200);
    admin = { ...admin, password: "api-password-1" };
    const third = await signIn(app, admin.email, admin.password);
    expect(await (await app.request("/api/me/sessions", { method: "DELETE", headers: auth })).json()).toEqual({ signed_out: 1 });
    expect((await app.request("/api/me", { headers: { authorization: `Bearer ${third}` } })).status).toBe(401);
  });
});
