// Members hear by email when a customer writes (README "Email channel"): the assignee, or, while
// unassigned, every member with inbox:manage who did not opt out; at most one email per member per
// ticket in ten minutes (at the boundary and one millisecond before); "notify only" never carries
// the customer's text.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSender } from "../../src/compose.ts";
import { NOTICE_THROTTLE_MS } from "../../src/inbox/member-notices.ts";
import { addTicketMessage, createTicket, updateTicket } from "../../src/inbox/tickets.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { addMember, seedCustomer, seedInboxOrg, type InboxOrg } from "./helpers.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { emailEnv } from "../support/email.ts";
import { eq } from "drizzle-orm";
import { members } from "../../src/db/schema/index.ts";

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let org: InboxOrg;
let manager: { token: string; memberId: string; email: string };
let viewer: { token: string; memberId: string; email: string };

const emailOf = async (memberId: string) => (await app.deps.db.select({ email: members.email }).from(members).where(eq(members.id, memberId)))[0]!.email;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await createTestApp(emailEnv(smtp.url));
  org = await seedInboxOrg(app);
  const m = await addMember(app, org.org_id, ["inbox:manage"]);
  manager = { ...m, email: await emailOf(m.memberId) };
  const v = await addMember(app, org.org_id, ["inbox:view"]);
  viewer = { ...v, email: await emailOf(v.memberId) };
  sender = createSender(app.deps);
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
});

const inbox = (email: string) => smtp.received.filter((m) => m.to.includes(email));
const mode = (token: string, value: string) =>
  app.request("/api/email/notifications", { method: "PUT", headers: { authorization: `Bearer ${token}` }, json: { mode: value } });

describe("who is told, and how often", () => {
  test("unassigned: the managers, once per ten minutes; notify_only without the text; off: nothing", async () => {
    const customer = await seedCustomer(app, org.org_id, { email: "pat@customer.example", name: "Pat" });
    const actor = { kind: "customer" as const, endUserId: customer.id };
    const ticket = await createTicket(app.deps, {
      orgId: org.org_id,
      actor,
      input: { subject: "Broken login", message: "SECRET-1 my password is hunter2", customerId: customer.id, source: "api" },
    });
    await sender.tick();
    const admin = inbox(org.admin_email);
    expect(admin).toHaveLength(1);
    expect(admin[0]!.headers.get("subject")).toBe(`[#${ticket.number}] Broken login`);
    expect(admin[0]!.headers.get("auto-submitted")).toBe("auto-generated");
    expect(admin[0]!.parts.get("text/plain")).toContain("SECRET-1");
    expect(inbox(manager.email)).toHaveLength(1);
    expect(inbox(viewer.email)).toHaveLength(0);

    expect((await mode(manager.token, "notify_only")).status).toBe(200);
    app.clock.advance(NOTICE_THROTTLE_MS - 1);
    await addTicketMessage(app.deps, { orgId: org.org_id, actor, ticketId: ticket.id, kind: "customer", body: "SECRET-2 still broken" });
    await sender.tick();
    expect([inbox(org.admin_email).length, inbox(manager.email).length]).toEqual([1, 1]);

    app.clock.advance(1);
    await addTicketMessage(app.deps, { orgId: org.org_id, actor, ticketId: ticket.id, kind: "customer", body: "SECRET-3 hello?" });
    await sender.tick();
    expect(inbox(org.admin_email).at(-1)!.parts.get("text/plain")).toContain("SECRET-3");
    const quiet = inbox(manager.email);
    expect(quiet).toHaveLength(2);
    expect(quiet[1]!.raw).not.toContain("SECRET");
    expect(quiet[1]!.parts.get("text/plain")).toContain(`/dashboard/inbox/${ticket.id}`);

    expect((await mode(manager.token, "off")).status).toBe(200);
    app.clock.advance(NOTICE_THROTTLE_MS);
    await addTicketMessage(app.deps, { orgId: org.org_id, actor, ticketId: ticket.id, kind: "customer", body: "SECRET-4" });
    await sender.tick();
    expect([inbox(org.admin_email).length, inbox(manager.email).length]).toEqual([3, 2]);
    expect((await mode(manager.token, "full")).status).toBe(200);
  });

  test("assigned: the assignee alone", async () => {
    const customer = await seedCustomer(app, org.org_id, { email: "sam@customer.example" });
    const actor = { kind: "customer" as const, endUserId: customer.id };
    const ticket = await createTicket(app.deps, {
      orgId: org.org_id,
      actor: { kind: "system", name: "test" },
      input: { subject: "Assigned", message: "first", customerId: customer.id, source: "api" },
    });
    await sender.tick();
    await updateTicket(app.deps, {
      orgId: org.org_id,
      actor: { kind: "member", memberId: org.admin_id },
      ticketId: ticket.id,
      patch: { assigneeId: manager.memberId },
    });
    const before = [inbox(org.admin_email).length, inbox(manager.email).length];
    app.clock.advance(NOTICE_THROTTLE_MS);
    await addTicketMessage(app.deps, { orgId: org.org_id, actor, ticketId: ticket.id, kind: "customer", body: "for the assignee" });
    await sender.tick();
    expect([inbox(org.admin_email).length, inbox(manager.email).length]).toEqual([before[0]!, before[1]! + 1]);
  });

  test("the choice is the member's own and bounded", async () => {
    expect((await mode(viewer.token, "sometimes")).status).toBe(400);
    expect(
      ((await (await app.request("/api/email/notifications", { headers: { authorization: `Bearer ${viewer.token}` } })).json()) as { mode: string }).mode,
    ).toBe("full");
    expect((await mode(viewer.token, "off")).status).toBe(200);
    const admin = `Bearer ${await signIn(app, org.admin_email, org.password)}`;
    expect(((await (await app.request("/api/email/notifications", { headers: { authorization: admin } })).json()) as { mode: string }).mode).toBe("full");
  });
});
