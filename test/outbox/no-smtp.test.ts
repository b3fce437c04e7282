// With no SMTP_URL (the embedded default of a fresh clone) mail is rendered
// and kept: the outbox API shows every message with "not sent: no SMTP configured", and nothing
// claims to have been delivered. A customer without an address is held with its own reason. Also
// end to end: a server started with the defaults (embedded database, PGlite pass only) does it
// with its own sender loop.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSender } from "../../src/compose.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { engine, seedDataDir } from "../support/db.ts";
import { bannerPassword, type RunningServer, startServer, tempDir } from "../support/process.ts";
import { seedCustomer, seedSeriesOrg, type SeriesOrg } from "../campaigns/helpers.ts";

let app: TestApp;
let org: SeriesOrg;
let sender: Sender;

beforeAll(async () => {
  app = await createTestApp();
  expect(app.deps.config.smtpUrl).toBeUndefined();
  org = await seedSeriesOrg(app);
  sender = createSender(app.deps);
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
});

test("the outbox API shows rendered messages with their not-sent reason", async () => {
  const auth = org.auth;
  const withMail = await seedCustomer(app, org.org_id, { email: "kept@example.com", name: "Kept Person", externalId: "u-kept" });
  const noMail = await seedCustomer(app, org.org_id, { email: null, name: "No Address", externalId: "u-nomail" });
  const created = await app.request("/api/campaigns", {
    headers: auth,
    json: {
      name: "Kept",
      slug: "kept",
      steps: [
        { delay_seconds: 0, subject: "Hello {{first_name}}", body: "Welcome, *{{name}}*." },
        { delay_seconds: 10, subject: "Later", body: "Again." },
      ],
    },
  });
  expect(created.status).toBe(201);
  expect((await app.request("/api/campaigns/kept/activate", { method: "POST", headers: auth })).status).toBe(200);
  for (const id of ["u-kept", "u-nomail"])
    expect((await app.request("/api/campaigns/kept/enrolments", { headers: auth, json: { customer_id: id } })).status).toBe(201);
  await sender.tick();
  app.clock.advance(10_000);
  await sender.tick();

  const res = await app.request(`/api/campaigns/kept/messages?customer=${withMail.id}`, { headers: auth });
  expect(res.status).toBe(200);
  const { messages } = (await res.json()) as { messages: Record<string, any>[] };
  expect(messages.map((m) => [m.subject, m.status, m.reason, m.sent_at])).toEqual([
    ["Later", "held", "not sent: no SMTP configured", null],
    ["Hello Kept", "held", "not sent: no SMTP configured", null],
  ]);
  const hello = messages[1]!;
  expect(hello.to).toBe("kept@example.com");
  expect(hello.text).toContain("Welcome, *Kept Person*.");
  expect(hello.html).toContain("<em>Kept Person</em>");
  expect(hello.message_id).toMatch(/^<[0-9a-f-]{36}@localhost\.localdomain>$/);
  const unaddressed = (await (await app.request(`/api/campaigns/kept/messages?customer=${noMail.id}`, { headers: auth })).json()) as {
    messages: Record<string, any>[];
  };
  expect(unaddressed.messages.map((m) => [m.status, m.reason])).toEqual([
    ["held", "not sent: customer has no email address"],
    ["held", "not sent: customer has no email address"],
  ]);
  expect((await (await app.request("/api/campaigns/kept/messages?status=sent", { headers: auth })).json()).messages).toEqual([]);
});

describe.skipIf(engine !== "pglite")("a fresh start with the defaults (embedded database, no SMTP_URL)", () => {
  let server: RunningServer | undefined;
  afterAll(() => {
    server?.proc.kill("SIGKILL");
  });

  test("the running server's own sender renders a series and the outbox API shows it as not sent", async () => {
    const dataDir = tempDir();
    await seedDataDir(dataDir);
    server = await startServer({ DATA_DIR: dataDir });
    const field = (label: string) => new RegExp(`^${label}:\\s+(\\S+)`, "m").exec(server!.stdout())?.[1];
    const session = await fetch(`${server.url}/api/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: field("Demo admin"), password: bannerPassword(server.stdout()) }),
    });
    const headers = { authorization: `Bearer ${((await session.json()) as { token: string }).token}`, "content-type": "application/json" };
    const send = (path: string, body?: unknown) => fetch(`${server!.url}${path}`, { method: "POST", headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    expect((await send("/api/customers", { external_id: "first-customer", email: "first@example.com", name: "First Customer" })).status).toBe(201);
    expect(
      (
        await send("/api/campaigns", {
          name: "Welcome",
          slug: "welcome",
          steps: [{ delay_seconds: 0, subject: "Welcome, {{first_name}}", body: "Glad you are here." }],
        })
      ).status,
    ).toBe(201);
    expect((await send("/api/campaigns/welcome/activate")).status).toBe(200);
    expect((await send("/api/campaigns/welcome/enrolments", { customer_id: "first-customer" })).status).toBe(201);
    let messages: Record<string, any>[] = [];
    for (let i = 0; i < 100 && messages[0]?.status !== "held"; i++) {
      await Bun.sleep(100);
      messages = ((await (await fetch(`${server.url}/api/campaigns/welcome/messages`, { headers })).json()) as { messages: Record<string, any>[] }).messages;
    }
    expect(messages).toEqual([
      expect.objectContaining({ subject: "Welcome, First", to: "first@example.com", status: "held", reason: "not sent: no SMTP configured", sent_at: null }),
    ]);
    expect(messages[0]!.text).toContain("Glad you are here.");
    expect(await server.stop()).toBe(0);
  }, 90_000);
});
