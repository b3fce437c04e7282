// The resolution email (README "CSAT"): resolving a ticket emails its customer one rating link per
// score, through the outbox to a real SMTP server on loopback; the link rates once (a second click
// changes nothing); a ticket rated or reopened before the email goes gets none; a chat ticket waits
// for the widget first.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { createSender } from "../../src/compose.ts";
import { outbox, tickets } from "../../src/db/schema/index.ts";
import { RESOLUTION_MAIL_KIND } from "../../src/inbox/csat-mail.ts";
import { rateTicket } from "../../src/inbox/csat.ts";
import { createTicket, updateTicket } from "../../src/inbox/tickets.ts";
import { REPLY_SEEN_GRACE_MS } from "../../src/inbox/reply-mail.ts";
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
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
});

const member = () => ({ kind: "member" as const, memberId: org.admin_id });
async function ticketFor(email: string, source: "api" | "chat" = "api") {
  const customer = await seedCustomer(app, org.org_id, { email, name: "Dana" });
  return createTicket(app.deps, {
    orgId: org.org_id,
    actor: member(),
    input: {
      subject: "Export",
      message: "Where is my export?",
      customerId: customer.id,
      source,
      ...(source === "chat" ? { conversationId: crypto.randomUUID() } : {}),
    },
  });
}
const resolve = (id: string) => updateTicket(app.deps, { orgId: org.org_id, actor: member(), ticketId: id, patch: { status: "resolved" } });
const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email));

describe("the resolution email", () => {
  test("carries a link per score; the link rates once", async () => {
    const ticket = await ticketFor("rate@customer.example");
    await resolve(ticket.id);
    await sender.tick();
    const [mail, ...more] = mailsTo("rate@customer.example");
    expect(more).toEqual([]);
    expect(mail!.headers.get("subject")).toBe(`Request #${ticket.number} is resolved: how did we do?`);
    const text = mail!.parts.get("text/plain")!;
    expect(text).toContain("How would you rate the help you received?");
    const links = [...text.matchAll(/(http\S+\/r\/[A-Za-z0-9_-]+\?score=(\d))/g)].map((m) => ({ url: m[1]!, score: m[2]! }));
    expect(links.map((l) => l.score)).toEqual(["1", "2", "3", "4", "5"]);
    const path = new URL(links[3]!.url).pathname;
    expect((await app.request(`${path}?score=4`)).status).toBe(200);
    const first = await app.request(path, { method: "POST", form: { score: "4", comment: "Fast" } });
    expect(await first.text()).toContain("4 out of 5");
    const second = await app.request(path, { method: "POST", form: { score: "1" } });
    expect(await second.text()).toContain("4 out of 5");
    const [rated] = await app.deps.db.select().from(tickets).where(eq(tickets.id, ticket.id));
    expect(rated).toMatchObject({ csatScore: 4, csatComment: "Fast" });
  });

  test("a ticket rated, or reopened, before the email goes gets none", async () => {
    const rated = await ticketFor("rated@customer.example");
    await resolve(rated.id);
    await rateTicket(app.deps, { orgId: org.org_id, ticketId: rated.id, score: 5 });
    const reopened = await ticketFor("reopened@customer.example");
    await resolve(reopened.id);
    await updateTicket(app.deps, { orgId: org.org_id, actor: member(), ticketId: reopened.id, patch: { status: "open" } });
    await sender.tick();
    expect(mailsTo("rated@customer.example")).toEqual([]);
    expect(mailsTo("reopened@customer.example")).toEqual([]);
    const rows = await app.deps.db
      .select({ status: outbox.status, ticket: outbox.payload })
      .from(outbox)
      .where(and(eq(outbox.orgId, org.org_id), eq(outbox.kind, RESOLUTION_MAIL_KIND)));
    expect(rows.filter((r) => r.status === "cancelled").length).toBe(2);
  });

  test("a chat ticket waits for the widget's prompt first", async () => {
    const ticket = await ticketFor("chat@customer.example", "chat");
    await resolve(ticket.id);
    await sender.tick();
    expect(mailsTo("chat@customer.example")).toEqual([]);
    app.clock.advance(REPLY_SEEN_GRACE_MS);
    await sender.tick();
    expect(mailsTo("chat@customer.example").length).toBe(1);
  });

  test("an org with CSAT off sends none", async () => {
    const { setCsatSettings } = await import("../../src/sdk/csat-settings.ts");
    await setCsatSettings(app.deps, org.org_id, { kind: "member", memberId: org.admin_id }, { csat_enabled: false });
    const ticket = await ticketFor("off@customer.example");
    await resolve(ticket.id);
    await sender.tick();
    expect(mailsTo("off@customer.example")).toEqual([]);
  });
});
