// The other ways in and the settings around them (README "Email channel"): POST /api/inbound/email
// for operators behind a relay (Bearer INBOUND_WEBHOOK_SECRET, the same recipient rules and
// dedupe as SMTP, the size limit at its boundary); STARTTLS on the listener when a certificate is
// configured; the configuration refusing what cannot work.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import nodemailer from "nodemailer";
import { loadConfig } from "../../src/config.ts";
import { startInboundSmtp } from "../../src/mail-in/smtp.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { freePort } from "../support/process.ts";
import { selfSignedCertificate } from "../support/tls.ts";
import { seedInboxOrg, type InboxOrg } from "../inbox/helpers.ts";
import { DKIM_DOMAIN, INBOUND_DOMAIN, WEBHOOK_SECRET, dkimKeyPath, emailEnv } from "../support/email.ts";

const LIMIT = 4096;
let app: TestApp;
let org: InboxOrg & { auth: Record<string, string> };

beforeAll(async () => {
  app = await createTestApp(emailEnv("smtp://127.0.0.1:9", { INBOUND_MAX_MESSAGE_BYTES: String(LIMIT) }));
  const seeded = await seedInboxOrg(app);
  org = { ...seeded, auth: { authorization: `Bearer ${await signIn(app, seeded.admin_email, seeded.password)}` } };
  expect((await app.request("/api/email/settings", { method: "PUT", headers: org.auth, json: { support_alias: "help" } })).status).toBe(200);
}, 60_000);
afterAll(() => app.close());

const relay = (raw: string, secret = WEBHOOK_SECRET) =>
  app.request("/api/inbound/email", { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "message/rfc822" }, body: raw });

function message(to: string, id: string, size?: number): string {
  const head = `From: Ray <ray@example.org>\r\nTo: ${to}\r\nSubject: Relayed\r\nMessage-ID: <${id}@example.org>\r\n\r\n`;
  const body = size === undefined ? "Hello through the relay.\r\n" : "x".repeat(size - head.length);
  return head + body;
}

describe("POST /api/inbound/email", () => {
  test("stores a message to the alias once; a wrong or missing secret is 401 and stores nothing", async () => {
    const raw = message(`Help <help@${INBOUND_DOMAIN}>`, "relay-1");
    expect((await relay(raw, "x".repeat(WEBHOOK_SECRET.length))).status).toBe(401);
    expect((await app.request("/api/inbound/email", { method: "POST", body: raw })).status).toBe(401);
    const first = await relay(raw);
    expect(first.status).toBe(200);
    const [result] = ((await first.json()) as { results: { status: string; ticket_id: string }[] }).results;
    expect(result!.status).toBe("stored");
    const ticket = (await (await app.request(`/api/tickets/${result!.ticket_id}`, { headers: org.auth })).json()) as {
      subject: string;
      source: string;
      messages: { body: string }[];
    };
    expect([ticket.subject, ticket.source, ticket.messages[0]!.body]).toEqual(["Relayed", "email", "Hello through the relay."]);
    const again = await relay(raw);
    expect(((await again.json()) as { results: unknown[] }).results).toEqual([{ status: "duplicate" }]);
  });

  test("404 unknown_recipient for foreign and unknown addresses; 400 for an empty body", async () => {
    for (const to of ["someone@elsewhere.example", `sales@${INBOUND_DOMAIN}`, `reply+${"0".repeat(32)}@${INBOUND_DOMAIN}`]) {
      const res = await relay(message(to, crypto.randomUUID()));
      expect([to, res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([to, 404, "unknown_recipient"]);
    }
    expect((await relay("")).status).toBe(400);
  });

  test('an 8-bit body is decoded by its declared charset, as on SMTP: Latin-1 "Größe" stays "Größe"', async () => {
    const raw = Buffer.concat([
      Buffer.from(
        `From: Ray <ray@example.org>\r\nTo: help@${INBOUND_DOMAIN}\r\nSubject: Size\r\nMessage-ID: <latin1-1@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=ISO-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n`,
      ),
      Buffer.from("Welche Größe hat das Paket?\r\n", "latin1"),
    ]);
    const res = await app.request("/api/inbound/email", {
      method: "POST",
      headers: { authorization: `Bearer ${WEBHOOK_SECRET}`, "content-type": "message/rfc822" },
      body: raw,
    });
    expect(res.status).toBe(200);
    const [result] = ((await res.json()) as { results: { ticket_id: string }[] }).results;
    const ticket = (await (await app.request(`/api/tickets/${result!.ticket_id}`, { headers: org.auth })).json()) as { messages: { body: string }[] };
    expect(ticket.messages[0]!.body).toBe("Welche Größe hat das Paket?");
  });

  test("INBOUND_MAX_MESSAGE_BYTES: at the limit stored, one byte over 413", async () => {
    const at = message(`help@${INBOUND_DOMAIN}`, "size-at", LIMIT);
    expect(Buffer.byteLength(at)).toBe(LIMIT);
    expect((await relay(at)).status).toBe(200);
    const over = message(`help@${INBOUND_DOMAIN}`, "size-over", LIMIT + 1);
    const res = await relay(over);
    expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([413, "payload_too_large"]);
  });
});

describe("STARTTLS", () => {
  test("offered with a certificate, and mail delivered over it", async () => {
    const { cert, key } = selfSignedCertificate();
    const port = freePort();
    const tlsApp = await createTestApp(
      emailEnv("smtp://127.0.0.1:9", { INBOUND_SMTP_PORT: String(port), INBOUND_SMTP_TLS_CERT: cert, INBOUND_SMTP_TLS_KEY: key }),
    );
    const listener = await startInboundSmtp(tlsApp.deps, port, "127.0.0.1");
    try {
      const seeded = await seedInboxOrg(tlsApp);
      const auth = { authorization: `Bearer ${await signIn(tlsApp, seeded.admin_email, seeded.password)}` };
      expect((await tlsApp.request("/api/email/settings", { method: "PUT", headers: auth, json: { support_alias: "tls" } })).status).toBe(200);
      const client = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, requireTLS: true, tls: { ca: cert, servername: "localhost" } });
      const info = await client.sendMail({
        envelope: { from: "t@example.org", to: [`tls@${INBOUND_DOMAIN}`] },
        raw: message(`tls@${INBOUND_DOMAIN}`, "tls-1"),
      });
      client.close();
      expect(info.accepted).toEqual([`tls@${INBOUND_DOMAIN}`]);
    } finally {
      await listener.close();
      await tlsApp.close();
    }
  });
});

describe("configuration", () => {
  const base = { BASE_URL: "http://localhost:3000" };
  test("DKIM_PRIVATE_KEY takes a PEM or a path; the three DKIM variables go together", () => {
    const pem = readFileSync(dkimKeyPath, "utf8");
    expect(loadConfig({ ...base, DKIM_DOMAIN, DKIM_SELECTOR: "s1", DKIM_PRIVATE_KEY: dkimKeyPath }).dkim?.privateKey).toBe(pem);
    expect(loadConfig({ ...base, DKIM_DOMAIN, DKIM_SELECTOR: "s1", DKIM_PRIVATE_KEY: pem.replace(/\n/g, "\\n") }).dkim?.privateKey).toBe(pem);
    expect(() => loadConfig({ ...base, DKIM_DOMAIN, DKIM_SELECTOR: "s1" })).toThrow("DKIM_PRIVATE_KEY");
    expect(() => loadConfig({ ...base, DKIM_DOMAIN, DKIM_SELECTOR: "s1", DKIM_PRIVATE_KEY: "/no/such/key.pem" })).toThrow("DKIM_PRIVATE_KEY");
    expect(() => loadConfig({ ...base, DKIM_SELECTOR: "s1", DKIM_PRIVATE_KEY: dkimKeyPath })).toThrow("DKIM_DOMAIN");
  });

  test("inbound needs its domain; TLS needs both halves; the secret and the size are bounded", () => {
    expect(() => loadConfig({ ...base, INBOUND_SMTP_PORT: "2525" })).toThrow("INBOUND_EMAIL_DOMAIN");
    expect(() => loadConfig({ ...base, INBOUND_WEBHOOK_SECRET: WEBHOOK_SECRET })).toThrow("INBOUND_EMAIL_DOMAIN");
    expect(() => loadConfig({ ...base, INBOUND_EMAIL_DOMAIN: "not a domain" })).toThrow("INBOUND_EMAIL_DOMAIN");
    const { cert } = selfSignedCertificate();
    expect(() => loadConfig({ ...base, INBOUND_EMAIL_DOMAIN: INBOUND_DOMAIN, INBOUND_SMTP_TLS_CERT: cert })).toThrow("INBOUND_SMTP_TLS_KEY");
    expect(() => loadConfig({ ...base, INBOUND_EMAIL_DOMAIN: INBOUND_DOMAIN, INBOUND_WEBHOOK_SECRET: "x".repeat(31) })).toThrow("INBOUND_WEBHOOK_SECRET");
    expect(loadConfig({ ...base, INBOUND_EMAIL_DOMAIN: INBOUND_DOMAIN, INBOUND_WEBHOOK_SECRET: "x".repeat(32) }).inbound.webhookSecret).toBe("x".repeat(32));
    expect(loadConfig({ ...base, INBOUND_EMAIL_DOMAIN: INBOUND_DOMAIN, INBOUND_WEBHOOK_SECRET: "x".repeat(256) }).inbound.webhookSecret).toBe("x".repeat(256));
    expect(() => loadConfig({ ...base, INBOUND_EMAIL_DOMAIN: INBOUND_DOMAIN, INBOUND_WEBHOOK_SECRET: "x".repeat(257) })).toThrow("INBOUND_WEBHOOK_SECRET");
    expect(loadConfig({ ...base, INBOUND_MAX_MESSAGE_BYTES: "1024" }).inbound.maxMessageBytes).toBe(1024);
    expect(() => loadConfig({ ...base, INBOUND_MAX_MESSAGE_BYTES: "1023" })).toThrow("INBOUND_MAX_MESSAGE_BYTES");
    expect(loadConfig({ ...base, INBOUND_MAX_MESSAGE_BYTES: String(25 * 1024 * 1024) }).inbound.maxMessageBytes).toBe(25 * 1024 * 1024);
    expect(() => loadConfig({ ...base, INBOUND_MAX_MESSAGE_BYTES: String(25 * 1024 * 1024 + 1) })).toThrow("INBOUND_MAX_MESSAGE_BYTES");
    for (const [name, min, max] of [
      ["INBOUND_SMTP_SESSION_SECONDS", 1, 3600],
      ["INBOUND_SMTP_COMMAND_SECONDS", 1, 600],
      ["INBOUND_SMTP_MAX_CONNECTIONS", 1, 10_000],
      ["INBOUND_SMTP_MAX_CONNECTIONS_PER_ADDRESS", 1, 10_000],
    ] as const) {
      const env = { ...base, INBOUND_SMTP_SESSION_SECONDS: "3600", INBOUND_SMTP_COMMAND_SECONDS: "1" };
      expect(() => loadConfig({ ...env, [name]: String(min) })).not.toThrow();
      expect(() => loadConfig({ ...env, [name]: String(max) })).not.toThrow();
      expect(() => loadConfig({ ...env, [name]: String(min - 1) })).toThrow(name);
      expect(() => loadConfig({ ...env, [name]: String(max + 1) })).toThrow(name);
    }
    expect(() => loadConfig({ ...base, INBOUND_SMTP_SESSION_SECONDS: "20", INBOUND_SMTP_COMMAND_SECONDS: "21" })).toThrow("INBOUND_SMTP_COMMAND_SECONDS");
    expect(loadConfig(base).inbound).toEqual({
      domain: undefined,
      smtpPort: undefined,
      tls: undefined,
      maxMessageBytes: 10 * 1024 * 1024,
      webhookSecret: undefined,
      smtpLimits: { sessionSeconds: 600, commandSeconds: 30, maxConnections: 100, maxConnectionsPerAddress: 10 },
    });
  });
});

describe("the OpenAPI document", () => {
  test("names the email routes, the relay's raw body and its secret", async () => {
    const doc = (await (await app.request("/api/openapi.json")).json()) as {
      paths: Record<string, Record<string, any>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    const relayOp = doc.paths["/api/inbound/email"]?.post;
    expect(Object.keys(relayOp?.requestBody?.content ?? {})).toEqual(["message/rfc822"]);
    expect(relayOp?.security).toEqual([{ inboundSecret: [] }]);
    expect(doc.components.securitySchemes.inboundSecret).toBeDefined();
    expect(Object.keys(doc.paths["/api/email/settings"] ?? {}).sort()).toEqual(["get", "put"]);
    expect(doc.paths["/api/email/settings"]!.put.requestBody.content["application/json"].schema.properties.support_alias).toBeDefined();
    expect(Object.keys(doc.paths).some((p) => /^\/api\/tickets\/\{id\}\/messages\/\{message_id\}\/email$/.test(p))).toBe(true);
  });
});
