// The inbox a person works in, through the app as a browser would: the thread turn by turn (the
// chat before the ticket, the AI marked with its sources, people by name, notes apart, no
// break-all), "Send and resolve", the subject edited, the tag filter and column, the search over
// conversations as well as tickets, and the queue counts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chatSubject, isRealQuestion, SUBJECT_MAX } from "../../src/agents/pipeline/subject.ts";
import { DASHBOARD_CSS } from "../../src/dashboard/styles.ts";
import { findTicket, updateTicket } from "../../src/inbox/tickets.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, post, withFlash } from "./helpers.ts";
import { type InboxFixture, seedInbox } from "./seed.ts";

let app: TestApp;
let admin: Member;
let fx: InboxFixture;
beforeAll(async () => {
  app = await createTestApp();
  admin = await adminOf(app, "Workspace Org");
  fx = await seedInbox(app, admin.orgId, admin.agentId!, "Ada");
});
afterAll(() => app.close());

describe("the thread", () => {
  test("turn by turn: the chat's customer turn and the AI's answer (marked, with its web sources) before the ticket's messages", async () => {
    const page = await (await get(app, admin, `/dashboard/inbox/${fx.ticketNumber}`)).text();
    const thread = page.slice(page.indexOf('id="thread"'), page.indexOf('<div class="grid2">'));
    const chatAt = thread.indexOf("How do I get a refund?");
    const aiAt = thread.indexOf('<article class="turn turn-ai" aria-label="AI agent">');
    const ticketAt = thread.indexOf("Please refund order 42.");
    expect(chatAt).toBeGreaterThan(-1);
    expect(aiAt).toBeGreaterThan(chatAt);
    expect(ticketAt).toBeGreaterThan(-1);
    expect(thread).toContain('<a href="https://example.com/refunds" rel="noopener noreferrer">Refund policy</a>');
    expect(thread).not.toContain("javascript:"); // a source that is not a web link is text only
    expect(thread).not.toContain("<pre>");
    expect(DASHBOARD_CSS).not.toContain("break-all");
    expect(DASHBOARD_CSS).toMatch(/\.turn-text \{[^}]*overflow-wrap: anywhere/);
  });
});

describe("the reply form", () => {
  test("Send and resolve sends the reply and resolves the ticket", async () => {
    const extra = await seedInbox(app, admin.orgId, admin.agentId!, "Bo");
    const path = `/dashboard/inbox/${extra.ticketNumber}`;
    const res = await post(app, admin, `${path}/reply`, { reply: "Done, refunded.", then: "resolve" });
    expect(res.status).toBe(303);
    const ticket = (await findTicket(app.deps, admin.orgId, extra.ticketId))!;
    expect(ticket.status).toBe("resolved");
    const page = await (await get(app, withFlash(admin, res), path)).text();
    expect(page).toContain("Reply sent; ticket resolved.");
    expect(page).toContain("Done, refunded.");
  });

  test("Send reply alone leaves the status as it was", async () => {
    const extra = await seedInbox(app, admin.orgId, admin.agentId!, "Cy");
    expect((await post(app, admin, `/dashboard/inbox/${extra.ticketNumber}/reply`, { reply: "Looking into it." })).status).toBe(303);
    expect((await findTicket(app.deps, admin.orgId, extra.ticketId))!.status).toBe("open");
  });

  test("the subject is editable from triage; a blank one is refused with the field named", async () => {
    const path = `/dashboard/inbox/${fx.ticketNumber}`;
    const fresh = (await findTicket(app.deps, admin.orgId, fx.ticketId))!;
    const blank = await post(app, admin, `${path}/triage`, {
      version: fresh.updatedAt.toISOString(),
      subject: "   ",
      status: fresh.status,
      priority: fresh.priority,
      team: "",
      assignee: "",
      tags: "",
    });
    expect(blank.status).toBe(400);
    expect(await blank.text()).toContain("Enter a subject.");
    const saved = await post(app, admin, `${path}/triage`, {
      version: fresh.updatedAt.toISOString(),
      subject: "Refund for order 42",
      status: fresh.status,
      priority: fresh.priority,
      team: "",
      assignee: "",
      tags: "",
    });
    expect(saved.status).toBe(303);
    expect((await findTicket(app.deps, admin.orgId, fx.ticketId))!.subject).toBe("Refund for order 42");
  });
});

describe("the list", () => {
  test("a tag filter and a tag column; counts of open, unassigned and mine", async () => {
    const tagged = await seedInbox(app, admin.orgId, admin.agentId!, "Di");
    await updateTicket(app.deps, { orgId: admin.orgId, actor: { kind: "system", name: "test" }, ticketId: tagged.ticketId, patch: { tags: ["Billing-Q"] } });
    const list = await (await get(app, admin, "/dashboard/inbox?tag=billing-q")).text();
    expect(list).toContain("Refund for Di");
    expect(list).not.toContain("Refund for Cy");
    expect(list).toContain('<th scope="col">Tags</th>');
    expect(list).toContain('href="/dashboard/inbox?tag=Billing-Q"');
    const counts = await app.request("/api/tickets/counts", { headers: { cookie: admin.cookie, "x-org-id": admin.orgId } });
    expect(counts.status).toBe(200);
    const body = (await counts.json()) as { open: number; unassigned: number; mine: number };
    expect(body.mine).toBe(0);
    expect(body.unassigned).toBe(body.open);
    expect(list).toContain(`data-count="open">${body.open}<`);
    const api = await app.request("/api/tickets?tag=billing-q", { headers: { cookie: admin.cookie, "x-org-id": admin.orgId } });
    expect(((await api.json()) as { tickets: { number: number }[] }).tickets.map((t) => t.number)).toEqual([tagged.ticketNumber]);
  });

  test("the search lists conversations whose transcript holds the text, as well as tickets", async () => {
    const page = await (await get(app, admin, "/dashboard/inbox?q=get+a+REFUND")).text();
    expect(page).toContain("Conversations mentioning the search");
    expect(page).toContain(`href="/dashboard/conversations/${fx.conversationId}"`);
    const none = await (await get(app, admin, "/dashboard/inbox?q=zebra+crossing")).text();
    expect(none).toContain("No conversation mentions this.");
  });
});

describe("a chat ticket's subject", () => {
  test("a real question, not the request for a person, a yes or a greeting", () => {
    const turn = (text: string) => ({ role: "customer", text }) as never;
    expect(chatSubject([turn("hi"), turn("How do I change my billing address?")], "Talk to a person")).toBe("How do I change my billing address?");
    expect(chatSubject([turn("hello")], "human")).toBe("Asked for a person");
    expect(chatSubject([], "My parcel is late again")).toBe("My parcel is late again");
    expect(isRealQuestion("yes please")).toBe(false);
    expect(isRealQuestion("Can I talk to a human?")).toBe(false);
    expect(isRealQuestion("Why?")).toBe(true);
  });

  test("the reason for the hand-off: the message that asked for a person, else the latest question before it, else the routing rule's team", () => {
    const turn = (text: string) => ({ role: "customer", text }) as never;
    const history = [turn("Hi"), turn("What are your opening hours?")];
    // The request carries its reason: that, without the request.
    expect(chatSubject(history, "My parcel arrived broken, can I talk to a person?")).toBe("My parcel arrived broken");
    expect(chatSubject(history, "Hi, my parcel arrived broken. I want to speak to a human")).toBe("My parcel arrived broken.");
    // A bare request: the latest real question before it, not the chat's first.
    expect(chatSubject([...history, turn("My parcel arrived broken"), turn("ok")], "human please")).toBe("My parcel arrived broken");
    // The message a routing rule matched is the reason; too short to say much, the team names it.
    expect(chatSubject(history, "I was charged twice for order 42", { team: "Billing" })).toBe("I was charged twice for order 42");
    expect(chatSubject([], "refund", { team: "Billing" })).toBe("Billing: Refund");
    expect(chatSubject([], "human")).toBe("Asked for a person");
  });

  test("one clean line, at most SUBJECT_MAX characters", () => {
    expect(chatSubject([], "My parcel\r\narrived\u2028broken\tand wet\u202e!")).toBe("My parcel arrived broken and wet!");
    const exact = `${"A".repeat(SUBJECT_MAX - 10)} broken it`;
    expect(exact.length).toBe(SUBJECT_MAX);
    expect(chatSubject([], exact)).toBe(exact);
    const over = `${exact}s`;
    const cut = chatSubject([], over);
    expect(cut.length).toBe(SUBJECT_MAX);
    expect(cut.endsWith("…")).toBe(true);
    // Never half a character: an emoji across the cut is dropped whole.
    const emoji = chatSubject([], `${"b".repeat(SUBJECT_MAX - 3)} 😀😀 more words`);
    expect(emoji.isWellFormed()).toBe(true);
    expect(emoji.length).toBeLessThanOrEqual(SUBJECT_MAX);
  });
});
