// While a person owns the conversation (its ticket is open or pending), the customer's messages go
// to that ticket and the AI stays quiet — unless the org chose that it keeps answering
// (PUT /api/widget/handoff). A resolved ticket hands the conversation back to the AI.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, asc, eq } from "drizzle-orm";
import { ticketMessages } from "../../../src/db/schema/index.ts";
import { updateTicket } from "../../../src/inbox/tickets.ts";
import { createTestApp, signIn, type TestApp } from "../../support/app.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../../support/chat.ts";

let app: TestApp;
let org: ChatOrg;
let admin: string;
beforeAll(async () => {
  app = await createTestApp();
  org = await seedChatOrg(app);
  admin = await signIn(app, org.admin_email, org.password);
}, 30_000);
afterAll(() => app.close());

const thread = (ticketId: string) =>
  app.deps.db
    .select({ kind: ticketMessages.kind, body: ticketMessages.body })
    .from(ticketMessages)
    .where(and(eq(ticketMessages.orgId, org.org_id), eq(ticketMessages.ticketId, ticketId)))
    .orderBy(asc(ticketMessages.seq));
const setting = (on: boolean) =>
  app.request("/api/widget/handoff", { method: "PUT", json: { ai_answers_during_handoff: on }, headers: { authorization: `Bearer ${admin}` } });

test("after the hand-off the AI stays quiet and the message joins the ticket; the org may let it keep answering; a resolved ticket hands back", async () => {
  const first = await chatJson(app, org, { message: "I want to talk to a person", user_id: "quiet-1" });
  const ticketId = first.routing.ticket_id as string;
  const session = { user_id: "quiet-1", session_id: first.session_id };

  const quiet = await chatJson(app, org, { message: "How do I reset my password?", ...session });
  expect(quiet.text).toBe("");
  expect(quiet.actions).toEqual([expect.objectContaining({ type: "ticket_updated", ticket_id: ticketId, reason: "person_owns" })]);
  expect((await thread(ticketId)).map((m) => m.body)).toContain("How do I reset my password?");

  expect((await app.request("/api/widget/handoff", { headers: { authorization: `Bearer ${admin}` } }).then((r) => r.json())) as unknown).toEqual({
    ai_answers_during_handoff: false,
  });
  expect((await setting(true)).status).toBe(200);
  const answering = await chatJson(app, org, { message: "How do I reset my password?", ...session });
  expect(answering.text).toContain("Forgot password");
  expect((await setting(false)).status).toBe(200);
  expect((await chatJson(app, org, { message: "How do I reset my password?", ...session })).text).toBe("");

  await updateTicket(app.deps, { orgId: org.org_id, actor: { kind: "system", name: "test" }, ticketId, patch: { status: "resolved" } });
  const back = await chatJson(app, org, { message: "How do I reset my password?", ...session });
  expect(back.text).toContain("Forgot password");
});

test("the setting is an admin's: a bad body is 400, no session is 401", async () => {
  expect(
    (await app.request("/api/widget/handoff", { method: "PUT", json: { ai_answers_during_handoff: "yes" }, headers: { authorization: `Bearer ${admin}` } }))
      .status,
  ).toBe(400);
  expect((await app.request("/api/widget/handoff", { method: "PUT", json: { ai_answers_during_handoff: true } })).status).toBe(401);
});

test("a ticket the AI opened on its own does not silence it: it answers, offers and opens nothing more, until a member acts", async () => {
  const session = { user_id: "auto-escalated" };
  const first = await chatJson(app, org, { message: "What is the airspeed of a swallow?", ...session });
  const second = await chatJson(app, org, { message: "What is the capital of Peru?", ...session, session_id: first.session_id });
  const opened = second.actions.find((a: { type: string }) => a.type === "ticket_created");
  expect(opened).toMatchObject({ reason: "escalation" });
  const next = { ...session, session_id: first.session_id };

  const answered = await chatJson(app, org, { message: "How do I reset my password?", ...next });
  expect(answered.text).toContain("Forgot password");
  expect(answered.routing).toBeUndefined();
  // Still unsure: no second ticket, and no second offer of a person while one waits.
  const unsure = await chatJson(app, org, { message: "What is the airspeed of a swallow?", ...next });
  expect(unsure.text).not.toBe("");
  expect(unsure.actions.map((a: { type: string }) => a.type)).toEqual([]);

  const reply = await app.request(`/api/tickets/${opened.ticket_id}/replies`, {
    headers: { authorization: `Bearer ${admin}` },
    json: { body: "A person here" },
  });
  expect(reply.status).toBeLessThan(300);
  const quiet = await chatJson(app, org, { message: "How do I reset my password?", ...next });
  expect(quiet.text).toBe("");
  expect(quiet.actions).toEqual([expect.objectContaining({ type: "ticket_updated", ticket_id: opened.ticket_id, reason: "person_owns" })]);
});
