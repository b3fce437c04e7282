// GET /api/tickets/{id}/events: the team's live view of one ticket — the customer's new messages
// (from the chat too), replies and status changes, never notes; another org's ticket is 404.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { addTicketMessage } from "../../src/inbox/tickets.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { readEvents } from "../support/sse.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../support/chat.ts";

let app: TestApp;
let org: ChatOrg;
let other: ChatOrg;
let token: string;
let otherToken: string;
beforeAll(async () => {
  app = await createTestApp();
  org = await seedChatOrg(app, { docs: false });
  other = await seedChatOrg(app, { docs: false });
  token = await signIn(app, org.admin_email, org.password);
  otherToken = await signIn(app, other.admin_email, other.password);
}, 30_000);
afterAll(() => app.close());

test("a member sees the customer's chat messages arrive on the ticket, never a note; another org gets 404, no session 401", async () => {
  const first = await chatJson(app, org, { message: "I want to talk to a person", user_id: "team-1" });
  const ticketId = first.routing.ticket_id as string;
  const path = `/api/tickets/${ticketId}/events`;
  expect((await app.request(path)).status).toBe(401);
  expect((await app.request(path, { headers: { authorization: `Bearer ${otherToken}` } })).status).toBe(404);
  expect((await app.request(`${path}?last_event_id=abc`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(400);
  const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/event-stream");
  const events = readEvents(res);
  await addTicketMessage(app.deps, { orgId: org.org_id, actor: { kind: "system", name: "test" }, ticketId, kind: "note", body: "a note" });
  await chatJson(app, org, { message: "Is anyone there?", user_id: "team-1", session_id: first.session_id });
  const message = await events.waitFor((e) => e.event === "message");
  expect(JSON.parse(message.data)).toMatchObject({ kind: "customer", author: { name: "Customer" }, text: "Is anyone there?" });
  expect(events.events.some((e) => e.data.includes("a note"))).toBe(false);
  events.close();
});
