// The rating email and page in the customer's language (README "Languages"): a German customer's
// resolved ticket is mailed in German (subject, body, score words, footer) and its link opens a
// German page; a link that names no ticket answers in the browser's language.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { simpleParser } from "mailparser";
import { createSender } from "../../src/compose.ts";
import { tickets } from "../../src/db/schema/index.ts";
import { createTicket, updateTicket } from "../../src/inbox/tickets.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { emailEnv } from "../support/email.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { type InboxOrg, seedCustomer, seedInboxOrg } from "./helpers.ts";

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let org: InboxOrg;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await createTestApp(emailEnv(smtp.url));
  org = await seedInboxOrg(app);
  sender = createSender(app.deps);
}, 90_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
});

test("the rating email to a German customer is German, and so is the page its link opens", async () => {
  const customer = await seedCustomer(app, org.org_id, { email: "kunde@customer.example", name: "Dana" });
  const member = { kind: "member" as const, memberId: org.admin_id };
  const ticket = await createTicket(app.deps, {
    orgId: org.org_id,
    actor: member,
    input: { subject: "Export", message: "Wo ist mein Export?", customerId: customer.id, source: "api", language: "de" },
  });
  await updateTicket(app.deps, { orgId: org.org_id, actor: member, ticketId: ticket.id, patch: { status: "resolved" } });
  await sender.tick();
  const [mail] = smtp.received.filter((m) => m.to.includes("kunde@customer.example"));
  expect((await simpleParser(mail!.raw)).subject).toBe(`Anfrage Nr. ${ticket.number} ist gelöst: Wie waren wir?`);
  const text = mail!.parts.get("text/plain")!;
  expect(text).toContain("Wie bewerten Sie die Hilfe, die Sie erhalten haben?");
  expect(text).toContain("5 (Ausgezeichnet)");
  expect(text).toContain("Die Links gelten 14 Tage");
  expect(text).not.toContain("How would you rate");
  expect(mail!.parts.get("text/html")).toContain('<html lang="de">');
  const link = /(http\S+\/r\/[A-Za-z0-9_-]+)\?score=4/.exec(text)![1]!;
  const path = new URL(link).pathname;
  const form = await (await app.request(`${path}?score=4`)).text();
  expect(form).toContain('<html lang="de"');
  expect(form).toContain(`Wie waren wir bei Ticket Nr. ${ticket.number}?`);
  expect(form).toContain("Bewertung senden");
  const rated = await (await app.request(path, { method: "POST", form: { score: "4" } })).text();
  expect(rated).toContain(`Sie haben Ticket Nr. ${ticket.number} mit 4 von 5 bewertet (Gut).`);
  const [row] = await app.deps.db.select({ score: tickets.csatScore }).from(tickets).where(eq(tickets.id, ticket.id));
  expect(row?.score).toBe(4);
});

test("a link that names no ticket answers in the browser's language; Arabic right to left", async () => {
  const french = await app.request("/r/not-a-token", { headers: { "accept-language": "fr-CH, fr;q=0.9, en;q=0.5" } });
  expect(french.status).toBe(404);
  expect(await french.text()).toContain("Ce lien n’est pas valide");
  const arabic = await (await app.request("/r/not-a-token", { headers: { "accept-language": "ar" } })).text();
  expect(arabic).toContain('<html lang="ar" dir="rtl">');
  const none = await (await app.request("/r/not-a-token")).text();
  expect(none).toContain("This link is not valid");
});
