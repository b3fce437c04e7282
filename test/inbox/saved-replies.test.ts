// Saved replies: /api/saved-replies (inbox:view reads, inbox:manage writes; names unique per org;
// limits at their boundary; the tenant boundary), the inbox_list_saved_replies tool, the Settings
// page, and insertion into a ticket's reply without the script (variables filled in).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { members } from "../../src/db/schema/index.ts";
import { SAVED_REPLY_LIMITS } from "../../src/inbox/saved-replies.ts";
import { fillSavedReply } from "../../src/inbox/saved-reply-template.ts";
import { inboxTools } from "../../src/inbox/tools.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith, post } from "../dashboard/helpers.ts";
import { type InboxFixture, seedInbox } from "../dashboard/seed.ts";

let app: TestApp;
let admin: Member;
let other: Member;
let fx: InboxFixture;
beforeAll(async () => {
  app = await createTestApp();
  admin = await adminOf(app, "Snippets");
  other = await adminOf(app, "Elsewhere");
  fx = await seedInbox(app, admin.orgId, admin.agentId!, "Ada");
});
afterAll(() => app.close());

const api = (who: Member, path: string, init: { method?: string; json?: unknown } = {}) =>
  app.request(path, {
    method: init.method ?? "GET",
    headers: { cookie: who.cookie, "x-org-id": who.orgId, origin: app.deps.config.baseUrl, ...(init.json ? { "content-type": "application/json" } : {}) },
    body: init.json ? JSON.stringify(init.json) : undefined,
  });

describe("/api/saved-replies", () => {
  test("create, list, read, change and delete; names unique per org; roles; other orgs see nothing", async () => {
    const created = await api(admin, "/api/saved-replies", {
      method: "POST",
      json: { name: "Refund done", body: "Hi {{customer.name}}, ticket #{{ticket.number}} is refunded. — {{agent.name}}" },
    });
    expect(created.status).toBe(201);
    const row = (await created.json()) as { id: string; name: string };
    expect(row.name).toBe("Refund done");
    const again = await api(admin, "/api/saved-replies", { method: "POST", json: { name: "Refund done", body: "x" } });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("name_taken");
    // Its own name again in another org is fine.
    expect((await api(other, "/api/saved-replies", { method: "POST", json: { name: "Refund done", body: "theirs" } })).status).toBe(201);

    const viewer = await memberWith(app, admin.orgId, ["inbox:view"]);
    const listed = (await (await api(viewer, "/api/saved-replies")).json()) as { saved_replies: { id: string }[] };
    expect(listed.saved_replies.map((r) => r.id)).toEqual([row.id]);
    expect((await api(viewer, "/api/saved-replies", { method: "POST", json: { name: "n", body: "b" } })).status).toBe(403);
    expect((await api(viewer, `/api/saved-replies/${row.id}`, { method: "DELETE" })).status).toBe(403);
    expect((await api(other, `/api/saved-replies/${row.id}`)).status).toBe(404);
    expect((await api(other, `/api/saved-replies/${row.id}`, { method: "PATCH", json: { body: "hijack" } })).status).toBe(404);

    const patched = await api(admin, `/api/saved-replies/${row.id}`, { method: "PATCH", json: { body: "Hello {{customer.name}}" } });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { body: string }).body).toBe("Hello {{customer.name}}");
    expect((await api(admin, `/api/saved-replies/${row.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(admin, `/api/saved-replies/${row.id}`)).status).toBe(404);
    expect((await api(admin, "/api/saved-replies/not-a-uuid")).status).toBe(404);
  });

  test("limits at their boundary: a name of the most characters passes, one more is 400", async () => {
    const ok = await api(admin, "/api/saved-replies", { method: "POST", json: { name: "n".repeat(SAVED_REPLY_LIMITS.name), body: "b" } });
    expect(ok.status).toBe(201);
    const long = await api(admin, "/api/saved-replies", { method: "POST", json: { name: "m".repeat(SAVED_REPLY_LIMITS.name + 1), body: "b" } });
    expect(long.status).toBe(400);
    const body = await api(admin, "/api/saved-replies", { method: "POST", json: { name: "big", body: "b".repeat(SAVED_REPLY_LIMITS.body + 1) } });
    expect(body.status).toBe(400);
  });
});

describe("variables", () => {
  test("known ones are filled in, unknown ones kept", () => {
    expect(
      fillSavedReply("Hi {{customer.name}}, #{{ ticket.number }} by {{agent.name}} {{order.id}}", { customerName: "Ada", ticketNumber: 7, agentName: "Sam" }),
    ).toBe("Hi Ada, #7 by Sam {{order.id}}");
    expect(fillSavedReply("Hi {{customer.name}}", { customerName: null, ticketNumber: 7, agentName: "Sam" })).toBe("Hi ");
  });

  test("a fallback stands in for a missing or blank value; a member without a display name signs as the widget shows them", () => {
    const body = 'Hi {{customer.name | "there"}}, sorry. — {{agent.name}}';
    expect(fillSavedReply(body, { customerName: null, ticketNumber: 7, agentName: null })).toBe("Hi there, sorry. — Support team");
    expect(fillSavedReply(body, { customerName: "  ", ticketNumber: 7, agentName: " " })).toBe("Hi there, sorry. — Support team");
    expect(fillSavedReply(body, { customerName: "Ada", ticketNumber: 7, agentName: "Sam" })).toBe("Hi Ada, sorry. — Sam");
    expect(fillSavedReply('{{ agent.name|"the team" }} on #{{ticket.number | "?"}}', { customerName: null, ticketNumber: 7, agentName: null })).toBe(
      "the team on #7",
    );
    // A value is put in once: a name that looks like a variable stays text.
    expect(fillSavedReply("Hi {{customer.name}}", { customerName: "{{agent.name}}", ticketNumber: 7, agentName: "Sam" })).toBe("Hi {{agent.name}}");
  });

  test("bounded: only the first variables are filled in; a template of many openings is refused when saved", () => {
    const many = "{{ticket.number}}".repeat(SAVED_REPLY_LIMITS.variables + 5);
    const filled = fillSavedReply(many, { customerName: null, ticketNumber: 7, agentName: null });
    expect(filled).toBe("7".repeat(SAVED_REPLY_LIMITS.variables) + "{{ticket.number}}".repeat(5));
  });
});

describe("template checks when saved", () => {
  const save = (name: string, body: string) => api(admin, "/api/saved-replies", { method: "POST", json: { name, body } });
  test("at most SAVED_REPLY_LIMITS.variables openings, a fallback of at most SAVED_REPLY_LIMITS.fallback characters, a known variable written right", async () => {
    expect((await save("vars ok", "{{ticket.number}} ".repeat(SAVED_REPLY_LIMITS.variables))).status).toBe(201);
    const tooMany = await save("vars over", "{{ticket.number}} ".repeat(SAVED_REPLY_LIMITS.variables + 1));
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(await tooMany.json())).toContain("/body");
    // Unknown variables count too: a hostile body of openings is refused, not scanned at every insert.
    expect((await save("openings", "{{".repeat(5000))).status).toBe(400);
    expect((await save("fallback ok", `Hi {{customer.name | "${"t".repeat(SAVED_REPLY_LIMITS.fallback)}"}}`)).status).toBe(201);
    expect((await save("fallback over", `Hi {{customer.name | "${"t".repeat(SAVED_REPLY_LIMITS.fallback + 1)}"}}`)).status).toBe(400);
    const unquoted = await save("unquoted", "Hi {{customer.name | there}}");
    expect(unquoted.status).toBe(400);
    expect(((await unquoted.json()) as { error: { details: { message: string }[] } }).error.details[0]!.message).toContain('{{customer.name | "fallback"}}');
    // An unknown variable is the team's own placeholder: kept as written.
    expect((await save("placeholder", "Your order {{order.id}} is on its way")).status).toBe(201);
    const patched = await api(admin, "/api/saved-replies", { method: "GET" });
    expect(patched.status).toBe(200);
  });
});

describe("the inbox_list_saved_replies tool", () => {
  test("lists the org's saved replies, read-only", async () => {
    await api(admin, "/api/saved-replies", { method: "POST", json: { name: "Tool one", body: "Text" } });
    const tool = inboxTools.find((t) => t.name === "inbox_list_saved_replies")!;
    expect(tool.scope).toBe("inbox:read");
    expect(tool.destructive).toBe(false);
    const result = await tool.execute({ deps: app.deps, orgId: admin.orgId, channel: "mcp", actor: { kind: "system", name: "test" } } as never, {});
    const names = (result as { value: { saved_replies: { name: string }[] } }).value.saved_replies.map((r) => r.name);
    expect(names).toContain("Tool one");
    expect(names).not.toContain("Refund done"); // deleted above; the other org's is not listed
  });
});

describe("dashboard", () => {
  test("Settings → Saved replies adds one; a duplicate name is shown next to the field; the reply form inserts it with variables filled, without the script", async () => {
    const added = await post(app, admin, "/dashboard/settings/saved-replies", { name: "Greeting", body: "Hello {{customer.name}}, about #{{ticket.number}}:" });
    expect(added.status).toBe(303);
    const dup = await post(app, admin, "/dashboard/settings/saved-replies", { name: "Greeting", body: "again" });
    expect(dup.status).toBe(409);
    expect(await dup.text()).toContain("A saved reply with this name already exists.");
    const list = (await (await api(admin, "/api/saved-replies")).json()) as { saved_replies: { id: string; name: string }[] };
    const greeting = list.saved_replies.find((r) => r.name === "Greeting")!;

    const page = await (await get(app, admin, `/dashboard/inbox/${fx.ticketNumber}`)).text();
    expect(page).toContain(`<option value="${greeting.id}">Greeting</option>`);
    const inserted = await post(app, admin, `/dashboard/inbox/${fx.ticketNumber}/insert`, { reply: "First line.", saved_reply: greeting.id });
    expect(inserted.status).toBe(200);
    expect(await inserted.text()).toContain(`First line.\n\nHello Ada &#60;Lovelace&#62;, about #${fx.ticketNumber}:</textarea>`);
    // A member without a display name signs as the widget shows them to the customer, never by their email.
    const sign = (await (await api(admin, "/api/saved-replies", { method: "POST", json: { name: "Signed", body: "— {{agent.name}}" } })).json()) as {
      id: string;
    };
    const nameless = await memberWith(app, admin.orgId, ["inbox:view", "inbox:manage"]);
    await app.deps.db.update(members).set({ name: "" }).where(eq(members.email, nameless.email));
    const signed = await (await post(app, nameless, `/dashboard/inbox/${fx.ticketNumber}/insert`, { reply: "", saved_reply: sign.id })).text();
    expect(signed).toContain("— Support team</textarea>");
    expect(signed).not.toContain(`— ${nameless.email}`);
    const none = await post(app, admin, `/dashboard/inbox/${fx.ticketNumber}/insert`, { reply: "", saved_reply: "" });
    expect(none.status).toBe(400);
    const viewer = await memberWith(app, admin.orgId, ["inbox:view"]);
    expect((await get(app, viewer, "/dashboard/settings/saved-replies")).status).toBe(403);
  });
});
