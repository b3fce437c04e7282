// Dashboard inbox pages through the app, as a browser with a session cookie: roles allowed and
// denied, the ticket list's filters and pages, a reply/note/triage round-trip (the note marked
// internal and never in the customer-visible thread), field errors with values kept, and the
// tenant boundary (another org's ticket, conversation or customer answers 404).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTicket, customerThread, findTicket } from "../../src/inbox/tickets.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith, post, withFlash } from "./helpers.ts";
import { type InboxFixture, seedInbox } from "./seed.ts";

let app: TestApp;
let admin: Member;
let other: Member;
let mine: InboxFixture;
let theirs: InboxFixture;
beforeAll(async () => {
  app = await createTestApp();
  admin = await adminOf(app, "Inbox Org");
  other = await adminOf(app, "Other Org");
  mine = await seedInbox(app, admin.orgId, admin.agentId!, "Ada");
  theirs = await seedInbox(app, other.orgId, other.agentId!, "Eve");
});
afterAll(() => app.close());

describe("inbox pages: roles", () => {
  test("inbox:view reads every page; without it 403 and no link", async () => {
    const viewer = await memberWith(app, admin.orgId, ["inbox:view"]);
    for (const path of [
      "/dashboard/inbox",
      `/dashboard/inbox/${mine.ticketNumber}`,
      "/dashboard/conversations",
      `/dashboard/conversations/${mine.conversationId}`,
      "/dashboard/customers",
      `/dashboard/customers/${mine.customerId}`,
    ]) {
      const res = await get(app, viewer, path);
      expect(res.status, path).toBe(200);
    }
    const page = await (await get(app, viewer, `/dashboard/inbox/${mine.ticketNumber}`)).text();
    expect(page).not.toContain('action="/dashboard/inbox/' + mine.ticketNumber + '/reply"'); // read only
    const outsider = await memberWith(app, admin.orgId, ["agents:view"]);
    for (const path of ["/dashboard/inbox", `/dashboard/inbox/${mine.ticketNumber}`, "/dashboard/conversations", `/dashboard/customers/${mine.customerId}`]) {
      expect((await get(app, outsider, path)).status, path).toBe(403);
    }
    expect(await (await get(app, outsider, "/dashboard")).text()).not.toContain('href="/dashboard/inbox"');
    // A viewer may not change anything.
    expect((await post(app, viewer, `/dashboard/inbox/${mine.ticketNumber}/reply`, { reply: "hi" })).status).toBe(403);
    expect((await post(app, viewer, `/dashboard/inbox/${mine.ticketNumber}/note`, { note: "hi" })).status).toBe(403);
    expect((await post(app, viewer, `/dashboard/inbox/${mine.ticketNumber}/triage`, { status: "closed" })).status).toBe(403);
  });

  test("not signed in: redirected to sign in with a way back", async () => {
    const res = await app.request("/dashboard/inbox");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/signin?return_to=%2Fdashboard%2Finbox");
  });
});

describe("ticket list", () => {
  test("shows tickets escaped, filters by status and text, and pages with a cursor", async () => {
    const body = await (await get(app, admin, "/dashboard/inbox")).text();
    expect(body).toContain("Refund for Ada &#60;b&#62;now&#60;/b&#62;");
    expect(body).not.toContain("<b>now</b>");
    expect(body).not.toContain("Eve"); // another org's ticket
    expect(await (await get(app, admin, "/dashboard/inbox?status=closed")).text()).toContain("No ticket matches these filters.");
    expect(await (await get(app, admin, "/dashboard/inbox?q=order+42")).text()).toContain(`href="/dashboard/inbox/${mine.ticketNumber}"`);
    expect(await (await get(app, admin, "/dashboard/inbox?q=nothing-like-this")).text()).toContain("No ticket matches");

    // 30 more tickets: two pages of 25, no ticket repeated.
    const org = (await adminOf(app, "Paged Org")) as Member;
    for (let i = 1; i <= 30; i++)
      await createTicket(app.deps, {
        orgId: org.orgId,
        actor: { kind: "system", name: "test" },
        input: { subject: `Paged ticket ${i}`, message: "m", source: "api" },
      });
    const first = await (await get(app, org, "/dashboard/inbox")).text();
    const next = /href="(\/dashboard\/inbox\?cursor=[^"]+)" rel="next"/.exec(first)?.[1];
    expect(next).toBeDefined();
    expect(first.match(/Paged ticket \d+</g)!.length).toBe(25);
    const second = await (await get(app, org, next!.replaceAll("&#38;", "&"))).text();
    expect(second.match(/Paged ticket \d+</g)!.length).toBe(5);
    expect(second).toContain("Paged ticket 1<");
    expect(second).not.toContain('rel="next"');
    // A forged cursor is a 400 page, not a 500.
    expect((await get(app, org, "/dashboard/inbox?cursor=bm90LWEtY3Vyc29y")).status).toBe(400);
  });
});

describe("one ticket", () => {
  test("reply, note and triage round-trip; the note is internal and never customer-visible", async () => {
    const path = `/dashboard/inbox/${mine.ticketNumber}`;
    const replied = await post(app, admin, `${path}/reply`, { reply: "We refunded it <today>." });
    expect(replied.status).toBe(303);
    expect(replied.headers.get("location")).toBe(path);
    const noted = await post(app, admin, `${path}/note`, { note: "Customer is a VIP; double-check the bank." });
    expect(noted.status).toBe(303);
    const page = await (await get(app, withFlash(admin, noted), path)).text();
    expect(page).toContain("Internal note added.");
    expect(page).toContain("We refunded it &#60;today&#62;.");
    expect(page).toMatch(
      /<article class="turn turn-note" aria-label="Internal note by [^"]*"><p class="turn-head"><span class="badge warn">Internal note<\/span> <strong>[^<]*<\/strong> <span class="muted">not visible to the customer<\/span>/,
    );
    expect(page).toContain("Customer is a VIP; double-check the bank.");

    const visible = await customerThread(app.deps, admin.orgId, mine.ticketId);
    expect(visible.map((m) => m.body)).toEqual(["Please refund order 42.", "We refunded it <today>."]);
    expect(JSON.stringify(visible)).not.toContain("VIP");

    const viewer = await memberWith(app, admin.orgId, ["inbox:view"]);
    const triaged = await post(app, admin, `${path}/triage`, { status: "pending", priority: "high", team: "Billing", assignee: "", tags: "refund, vip" });
    expect(triaged.status).toBe(303);
    const ticket = (await findTicket(app.deps, admin.orgId, mine.ticketId))!;
    expect(ticket).toMatchObject({ status: "pending", priority: "high", team: "Billing", assigneeMemberId: null, tags: ["refund", "vip"] });
    const filtered = await (await get(app, viewer, "/dashboard/inbox?status=pending&team=Billing")).text();
    expect(filtered).toContain(`href="/dashboard/inbox/${mine.ticketNumber}"`);
    const history = await (await get(app, admin, path)).text();
    expect(history).toContain("priority: normal → high");
  });

  test("field errors next to the field, the values kept", async () => {
    const path = `/dashboard/inbox/${mine.ticketNumber}`;
    const empty = await post(app, admin, `${path}/reply`, { reply: "   " });
    expect(empty.status).toBe(400);
    const body = await empty.text();
    expect(body).toContain('id="f-reply-error"');
    expect(body).toContain("Write something first.");
    expect(body).toContain('aria-invalid="true"');

    const tooLong = await post(app, admin, `${path}/note`, { note: "x".repeat(10_001) });
    expect(tooLong.status).toBe(400);
    expect(await tooLong.text()).toContain("At most 10000 characters (this has 10001).");
    // Exactly at the limit passes.
    expect((await post(app, admin, `${path}/note`, { note: "y".repeat(10_000) })).status).toBe(303);

    const tags = Array.from({ length: 21 }, (_, i) => `t${i}`).join(", ");
    const triage = await post(app, admin, `${path}/triage`, { status: "open", priority: "low", team: "Kept <team>", assignee: "", tags });
    expect(triage.status).toBe(400);
    const text = await triage.text();
    expect(text).toContain('id="f-tags-error"');
    expect(text).toContain("At most 20 tags.");
    expect(text).toContain('value="Kept &#60;team&#62;"');
    const badAssignee = await post(app, admin, `${path}/triage`, { status: "open", priority: "low", team: "", assignee: crypto.randomUUID(), tags: "" });
    expect(badAssignee.status).toBe(400);
    expect(await badAssignee.text()).toContain('id="f-assignee-error"');
  });

  test("a triage form opened before someone else's change is refused (409), nothing saved, the choices kept", async () => {
    const t = await createTicket(app.deps, {
      orgId: admin.orgId,
      actor: { kind: "system", name: "test" },
      input: { subject: "Race", message: "m", source: "api" },
    });
    const path = `/dashboard/inbox/${t.number}`;
    const version = /name="version" value="([^"]+)"/.exec(await (await get(app, admin, path)).text())![1]!;
    app.clock.advance(1_000);
    expect((await post(app, admin, `${path}/triage`, { version, status: "pending", priority: "urgent", team: "", assignee: "", tags: "" })).status).toBe(303);
    const fresh = /name="version" value="([^"]+)"/.exec(await (await get(app, admin, path)).text())![1]!;
    expect(fresh).not.toBe(version);
    // A second member's form, rendered before that change, would set the status back to open.
    const stale = await post(app, admin, `${path}/triage`, { version, status: "open", priority: "low", team: "Kept", assignee: "", tags: "" });
    expect(stale.status).toBe(409);
    const body = await stale.text();
    expect(body).toContain("This ticket changed after you opened it");
    expect(body).toContain('value="Kept"');
    expect((await findTicket(app.deps, admin.orgId, t.id))!).toMatchObject({ status: "pending", priority: "urgent" });
    // Saving again from that page (now carrying the current version) applies.
    const again = /name="version" value="([^"]+)"/.exec(body)![1]!;
    expect(again).toBe(fresh);
    expect((await post(app, admin, `${path}/triage`, { version: again, status: "open", priority: "low", team: "Kept", assignee: "", tags: "" })).status).toBe(
      303,
    );
    expect((await findTicket(app.deps, admin.orgId, t.id))!).toMatchObject({ status: "open", team: "Kept" });
  });

  test("triage limits at their boundary: 20 tags of 50 characters and a 100-character team pass, one more fails", async () => {
    const path = `/dashboard/inbox/${mine.ticketNumber}`;
    const twenty = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, "0")}${"t".repeat(48)}`);
    expect(
      (await post(app, admin, `${path}/triage`, { status: "open", priority: "low", team: "T".repeat(100), assignee: "", tags: twenty.join(", ") })).status,
    ).toBe(303);
    expect((await findTicket(app.deps, admin.orgId, mine.ticketId))!.tags).toHaveLength(20);
    const longTag = await post(app, admin, `${path}/triage`, { status: "open", priority: "low", team: "", assignee: "", tags: "x".repeat(51) });
    expect(longTag.status).toBe(400);
    expect(await longTag.text()).toContain("Each tag is at most 50 characters.");
    const longTeam = await post(app, admin, `${path}/triage`, { status: "open", priority: "low", team: "T".repeat(101), assignee: "", tags: "" });
    expect(longTeam.status).toBe(400);
    expect(await longTeam.text()).toContain('id="f-team-error"');
    const badStatus = await post(app, admin, `${path}/triage`, { status: "deleted" });
    expect(badStatus.status).toBe(400);
    expect(await badStatus.text()).toContain('id="f-status-error"');
  });

  test("a closed ticket refuses a reply next to the field, still takes a note", async () => {
    const t = await createTicket(app.deps, {
      orgId: admin.orgId,
      actor: { kind: "system", name: "test" },
      input: { subject: "To close", message: "m", source: "api" },
    });
    expect((await post(app, admin, `/dashboard/inbox/${t.number}/triage`, { status: "closed" })).status).toBe(303);
    const refused = await post(app, admin, `/dashboard/inbox/${t.number}/reply`, { reply: "Keep me" });
    expect(refused.status).toBe(400);
    const body = await refused.text();
    expect(body).toContain('id="f-reply-error"');
    expect(body).toContain("Keep me</textarea>");
    expect((await post(app, admin, `/dashboard/inbox/${t.number}/note`, { note: "closed, noted" })).status).toBe(303);
  });

  test("tenant boundary: another org's ticket, conversation and customer answer 404", async () => {
    expect((await get(app, admin, `/dashboard/inbox/${theirs.ticketId}`)).status).toBe(404);
    expect((await post(app, admin, `/dashboard/inbox/${theirs.ticketId}/reply`, { reply: "hi" })).status).toBe(404);
    expect((await post(app, admin, `/dashboard/inbox/${theirs.ticketId}/note`, { note: "hi" })).status).toBe(404);
    expect((await post(app, admin, `/dashboard/inbox/${theirs.ticketId}/triage`, { status: "closed" })).status).toBe(404);
    expect((await get(app, admin, `/dashboard/conversations/${theirs.conversationId}`)).status).toBe(404);
    expect((await get(app, admin, `/dashboard/customers/${theirs.customerId}`)).status).toBe(404);
    expect((await get(app, admin, "/dashboard/customers/cust-Eve")).status).toBe(404);
    expect((await get(app, admin, "/dashboard/companies/co-Eve")).status).toBe(404);
    expect(await (await get(app, admin, "/dashboard/companies")).text()).not.toContain("co-Eve");
    expect((await findTicket(app.deps, other.orgId, theirs.ticketId))!.status).toBe("open");
  });
});

describe("conversations and customers", () => {
  test("a transcript shows actions, sources and confidence; the list links it", async () => {
    const list = await (await get(app, admin, "/dashboard/conversations")).text();
    expect(list).toContain(`href="/dashboard/conversations/${mine.conversationId}"`);
    expect(await (await get(app, admin, "/dashboard/conversations?routed=no")).text()).not.toContain(mine.conversationId);
    const page = await (await get(app, admin, `/dashboard/conversations/${mine.conversationId}`)).text();
    expect(page).toContain("How do I get a refund?");
    expect(page).toContain("Refunds take 5 days.");
    expect(page).toContain("confidence 82%");
    expect(page).toContain("inbox_create_ticket (ok)");
    expect(page).toContain('<a href="https://example.com/refunds" rel="noopener noreferrer">Refund policy</a>');
    // A source URL that is not http(s) is shown as its title only, never as a link.
    expect(page).toContain("<li>Old &#60;policy&#62;</li>");
    expect(page).not.toContain("javascript:");
    expect(page).toContain(`href="/dashboard/inbox/${mine.ticketId}"`);
  });

  test("a customer with tickets and events, their company with its customers and events; the lists search", async () => {
    const list = await (await get(app, admin, "/dashboard/customers?q=ada")).text();
    expect(list).toContain("Ada &#60;Lovelace&#62;");
    expect(await (await get(app, admin, "/dashboard/customers?q=zzz")).text()).toContain("No customer matches.");
    const page = await (await get(app, admin, `/dashboard/customers/${mine.customerId}`)).text();
    expect(page).toContain(`href="/dashboard/inbox/${mine.ticketNumber}"`);
    expect(page).toContain("viewed_pricing");
    expect(page).toContain(`href="/dashboard/inbox?customer=${mine.customerId}"`);
    expect(page).toMatch(/<a href="\/dashboard\/companies\/[0-9a-f-]{36}">/);
    const companies = await (await get(app, admin, "/dashboard/companies?q=co-ada")).text();
    expect(companies).toContain("co-Ada");
    const company = await (await get(app, admin, "/dashboard/companies/co-Ada")).text();
    expect(company).toContain(`href="/dashboard/customers/${mine.customerId}"`);
    expect(company).toContain("viewed_pricing");
    expect((await get(app, await memberWith(app, admin.orgId, ["agents:view"]), "/dashboard/companies")).status).toBe(403);
    const theirTickets = await (await get(app, admin, `/dashboard/inbox?customer=${mine.customerId}`)).text();
    expect(theirTickets).toContain(`href="/dashboard/inbox/${mine.ticketNumber}"`);
    const nobody = await get(app, admin, "/dashboard/inbox?customer=not-a-uuid");
    expect(nobody.status).toBe(200);
    expect(await nobody.text()).toContain("No ticket matches these filters.");
    expect(theirTickets).toContain(`Tickets of <a href="/dashboard/customers/${mine.customerId}">Ada &#60;Lovelace&#62;</a>`);
  });
});
