// Header-derived text is shown to members as lines of the ticket (README "Email channel"):
// control characters (CR, LF and the rest of C0 and C1) and bidirectional overrides in an
// attachment's name, the subject or a display name are removed before anything is stored, so a
// filename cannot add fake lines ("Support team: …") to the message members read.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { endUsers } from "../../src/db/schema/index.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { seedInboxOrg, type InboxOrg } from "../inbox/helpers.ts";
import { INBOUND_DOMAIN, WEBHOOK_SECRET, emailEnv } from "../support/email.ts";

let app: TestApp;
let org: InboxOrg & { auth: Record<string, string> };

beforeAll(async () => {
  app = await createTestApp(emailEnv("smtp://127.0.0.1:9"));
  const seeded = await seedInboxOrg(app);
  org = { ...seeded, auth: { authorization: `Bearer ${await signIn(app, seeded.admin_email, seeded.password)}` } };
  expect((await app.request("/api/email/settings", { method: "PUT", headers: org.auth, json: { support_alias: "help" } })).status).toBe(200);
}, 60_000);
afterAll(() => app.close());

test("CR/LF, other control characters and bidi overrides in attachment names, subject and display name are stripped", async () => {
  // RFC 2231 / RFC 2047 encodings carry any byte into a decoded header value.
  const fake = "a.pdf\r\nSupport team: your refund is approved\r\n[Attachment not kept: x";
  const encodedName = `=?UTF-8?B?${Buffer.from(fake).toString("base64")}?=`;
  const subject = `=?UTF-8?B?${Buffer.from("Hello\r\nSupport team: done\u0085\u202Egpj.exe").toString("base64")}?=`;
  const name = `=?UTF-8?B?${Buffer.from("Dana\r\nSupport team\u0007").toString("base64")}?=`;
  const raw = [
    `From: ${name} <dana@customer.example>`,
    `To: help@${INBOUND_DOMAIN}`,
    `Subject: ${subject}`,
    "Message-ID: <ctl-1@customer.example>",
    "MIME-Version: 1.0",
    'Content-Type: multipart/mixed; boundary="b"',
    "",
    "--b",
    "Content-Type: text/plain",
    "",
    "See attached.",
    "--b",
    `Content-Type: application/pdf; name="${encodedName}"`,
    `Content-Disposition: attachment; filename="${encodedName}"`,
    "Content-Transfer-Encoding: base64",
    "",
    Buffer.from("%PDF-1.4").toString("base64"),
    "--b--",
    "",
  ].join("\r\n");
  const res = await app.request("/api/inbound/email", {
    method: "POST",
    headers: { authorization: `Bearer ${WEBHOOK_SECRET}`, "content-type": "message/rfc822" },
    body: raw,
  });
  expect(res.status).toBe(200);
  const [result] = ((await res.json()) as { results: { ticket_id: string; message_id: string }[] }).results;
  const ticket = (await (await app.request(`/api/tickets/${result!.ticket_id}`, { headers: org.auth })).json()) as {
    subject: string;
    messages: { body: string }[];
  };
  const body = ticket.messages[0]!.body;
  // The message is the text and one line per attachment: nothing the filename made up.
  expect(body.split("\n").filter((l) => l.startsWith("Support team") || l.startsWith("[Attachment"))).toEqual([
    "[Attachment not kept: a.pdfSupport team: your refund is approved[Attachment not kept: x, 8 bytes]",
  ]);
  expect(ticket.subject).toBe("Hello Support team: donegpj.exe");
  const email = (await (await app.request(`/api/tickets/${result!.ticket_id}/messages/${result!.message_id}/email`, { headers: org.auth })).json()) as {
    subject: string;
    attachments: { name: string }[];
  };
  expect(email.subject).toBe("Hello Support team: donegpj.exe");
  expect(email.attachments.map((a) => a.name)).toEqual(["a.pdfSupport team: your refund is approved[Attachment not kept: x"]);
  const [customer] = await app.deps.db.select({ name: endUsers.name }).from(endUsers).where(eq(endUsers.email, "dana@customer.example"));
  expect(customer?.name).toBe("DanaSupport team");
});
