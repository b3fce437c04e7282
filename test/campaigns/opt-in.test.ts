// Double opt-in against a real SMTP server on loopback: a series requested by email alone through
// the public widget key sends exactly one confirmation; only its link (a GET shows a button, the
// POST confirms) starts the series, whose step 1 then arrives; an unconfirmed request expires.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OPT_IN, optInsOf } from "../../src/campaigns/opt-in.ts";
import { listEnrolments } from "../../src/campaigns/queries.ts";
import { findEndUserByEmail } from "../../src/customers/records.ts";
import { createSender } from "../../src/compose.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let org: Awaited<ReturnType<typeof seedOrg>>;
let auth: Record<string, string>;
let campaignId: string;

const LINK = /http:\/\/localhost:3000(\/series\/confirm\/[A-Za-z0-9_-]{43})/;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await createTestApp({ SMTP_URL: smtp.url, MAIL_FROM: "news@mail.example.com" });
  org = await seedOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  sender = createSender(app.deps);
  expect((await app.request("/api/widget/identity", { method: "PUT", headers: auth, json: { enabled: false } })).status).toBe(200);
  const created = await app.request("/api/campaigns", {
    headers: auth,
    json: {
      name: "Getting started",
      slug: "getting-started",
      sender: { name: "Acme Team" },
      steps: [{ delay_seconds: 0, subject: "Welcome aboard", body: "Hello {{email}}, step one." }],
    },
  });
  expect(created.status).toBe(201);
  campaignId = ((await created.json()) as { id: string }).id;
  expect((await app.request("/api/campaigns/getting-started/activate", { method: "POST", headers: auth })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
});

const request = (email: string) =>
  app.request("/api/sdk/series", {
    headers: { authorization: `Bearer ${org.widget_key}` },
    json: { campaign: "getting-started", action: "enroll", email },
    ip: "192.0.2.10",
  });
const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email));
const enrolled = async () => (await listEnrolments(app.deps, org.org_id, campaignId, {})).enrolments.map((e) => [e.customer.email, e.state]);

describe("the round trip", () => {
  test("request → exactly one confirmation → the link's page (nothing yet) → its POST → step 1 mailed", async () => {
    const res = await request("New.Reader@example.com");
    expect(res.status).toBe(202);
    expect(smtp.received).toHaveLength(0);
    await sender.tick();
    await sender.tick();
    const [confirmation, ...more] = mailsTo("new.reader@example.com");
    expect(more).toEqual([]);
    expect(confirmation!.from).toBe("news@mail.example.com");
    expect(confirmation!.headers.get("from")).toContain("Acme Team");
    expect(confirmation!.headers.get("subject")).toBe("Confirm your subscription: Getting started");
    expect(confirmation!.headers.get("auto-submitted")).toBe("auto-generated");
    expect(confirmation!.headers.has("list-unsubscribe")).toBe(false);
    const text = confirmation!.parts.get("text/plain")!;
    const path = LINK.exec(text)![1]!;
    expect(confirmation!.parts.get("text/html")).toContain(`href="http://localhost:3000${path}"`);
    // Nobody was created or enrolled by the request.
    expect(await findEndUserByEmail(app.deps, org.org_id, "new.reader@example.com")).toBeNull();
    expect(await enrolled()).toEqual([]);

    // A mail scanner fetches the link: a page with a button, and still nothing happens.
    for (let i = 0; i < 2; i++) {
      const page = await app.request(path);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('<form method="post">');
      expect(html).toContain("Getting started");
      expect(html).not.toContain("new.reader@example.com");
    }
    await sender.tick();
    expect(await enrolled()).toEqual([]);
    expect(smtp.received).toHaveLength(1);

    const confirmed = await app.request(path, { method: "POST", form: { confirm: "subscription" } });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain("You are subscribed");
    expect(await enrolled()).toEqual([["new.reader@example.com", "active"]]);
    await sender.tick();
    const [, step1, ...after] = mailsTo("new.reader@example.com");
    expect(after).toEqual([]);
    expect(step1!.headers.get("subject")).toBe("Welcome aboard");
    expect(step1!.parts.get("text/plain")).toContain("Hello new.reader@example.com, step one.");
    expect(step1!.headers.get("list-unsubscribe")).toMatch(/^<http:\/\/localhost:3000\/u\/[A-Za-z0-9_-]{43}>$/);

    // Confirming again changes nothing and mails nothing.
    const again = await app.request(path, { method: "POST", form: { confirm: "subscription" } });
    expect([again.status, (await again.text()).includes("Already confirmed")]).toEqual([200, true]);
    await sender.tick();
    expect(mailsTo("new.reader@example.com")).toHaveLength(2);
    expect((await optInsOf(app.deps, org.org_id, "new.reader@example.com")).map((o) => [o.confirmedAt !== null, o.tokenSealed])).toEqual([[true, null]]);

    // The link is a capability: the request log names the route, never the token.
    expect(app.logs.filter((l) => l.path === "/series/confirm/[token]").length).toBeGreaterThanOrEqual(4);
    expect(app.rawLogs.some((l) => l.includes(path.split("/").pop()!))).toBe(false);
  });
});

describe("a paused series", () => {
  test("its link's POST is 409 and enrols no one; once the series is active again the same link works", async () => {
    expect((await request("patient@example.com")).status).toBe(202);
    await sender.tick();
    const path = LINK.exec(mailsTo("patient@example.com")[0]!.parts.get("text/plain")!)![1]!;
    expect((await app.request("/api/campaigns/getting-started/pause", { method: "POST", headers: auth })).status).toBe(200);
    const paused = await app.request(path, { method: "POST", form: { confirm: "subscription" } });
    expect(paused.status).toBe(409);
    expect(await enrolled()).not.toContainEqual(["patient@example.com", "active"]);
    expect((await app.request("/api/campaigns/getting-started/activate", { method: "POST", headers: auth })).status).toBe(200);
    expect((await app.request(path, { method: "POST", form: { confirm: "subscription" } })).status).toBe(200);
    expect(await enrolled()).toContainEqual(["patient@example.com", "active"]);
  });
});

describe("after an unsubscribe", () => {
  test("an address that confirmed and then unsubscribed is not asked again; the same 202", async () => {
    expect((await request("leaver@example.com")).status).toBe(202);
    await sender.tick();
    const path = LINK.exec(mailsTo("leaver@example.com")[0]!.parts.get("text/plain")!)![1]!;
    expect((await app.request(path, { method: "POST", form: { confirm: "subscription" } })).status).toBe(200);
    await sender.tick();
    const unsubscribe = mailsTo("leaver@example.com")[1]!.headers.get("list-unsubscribe")!.slice(1, -1);
    expect((await app.request(unsubscribe, { method: "POST", form: { "List-Unsubscribe": "One-Click" } })).status).toBe(200);
    const again = await request("leaver@example.com");
    expect([again.status, await again.json()]).toEqual([202, { campaign: { id: campaignId, slug: "getting-started" }, action: "enroll", accepted: true }]);
    await sender.tick();
    expect(mailsTo("leaver@example.com")).toHaveLength(2);
  });
});

describe("expiry", () => {
  test(`a link works until ${OPT_IN.expirySeconds / 3600} hours after the request, then neither its page nor its POST does, and the request is deleted`, async () => {
    expect((await request("late@example.com")).status).toBe(202);
    await sender.tick();
    const path = LINK.exec(mailsTo("late@example.com")[0]!.parts.get("text/plain")!)![1]!;
    app.clock.advance(OPT_IN.expirySeconds * 1000 - 1);
    expect((await app.request(path)).status).toBe(200);
    app.clock.advance(1);
    expect((await app.request(path)).status).toBe(404);
    expect((await app.request(path, { method: "POST", form: { confirm: "subscription" } })).status).toBe(404);
    expect(await enrolled()).not.toContainEqual(["late@example.com", "active"]);
    await sender.tick();
    expect(await optInsOf(app.deps, org.org_id, "late@example.com")).toEqual([]);
  });

  test("a confirmation still queued when its request expires is never mailed", async () => {
    expect((await request("queued@example.com")).status).toBe(202);
    app.clock.advance(OPT_IN.expirySeconds * 1000);
    await sender.tick();
    expect(mailsTo("queued@example.com")).toEqual([]);
  });
});
