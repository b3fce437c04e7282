// Asking for a person again does not open a ticket per message: a conversation already waiting on
// a person adds the message to its ticket; and tickets a chat opens count against the widget key's
// ticket quota like POST /api/sdk/tickets/create (SDK_TICKETS_PER_KEY_IP_PER_MINUTE).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { ticketMessages, tickets } from "../../../src/db/schema/index.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { chat, chatJson, type ChatOrg, seedChatOrg } from "../../support/chat.ts";

let app: TestApp;
let org: ChatOrg;
beforeAll(async () => {
  app = await createTestApp({ SDK_TICKETS_PER_KEY_IP_PER_MINUTE: "3" });
  org = await seedChatOrg(app, { docs: false });
}, 30_000);
afterAll(() => app.close());

const orgTickets = () => app.deps.db.select().from(tickets).where(eq(tickets.orgId, org.org_id));

test("a second request for a person in the same session joins the waiting ticket", async () => {
  const first = await chatJson(app, org, { message: "I want to talk to a person", user_id: "repeat-1" });
  expect(first.routing.ticket_id).toBeString();
  const again = await chatJson(app, org, { message: "Hello? Still waiting for a human", mode: "livehelp", user_id: "repeat-1", session_id: first.session_id });
  expect(again.routing.ticket_id).toBe(first.routing.ticket_id);
  expect(again.actions).toEqual([expect.objectContaining({ type: "ticket_updated", ticket_id: first.routing.ticket_id })]);
  expect(await orgTickets()).toHaveLength(1);
  const messages = await app.deps.db
    .select({ body: ticketMessages.body })
    .from(ticketMessages)
    .where(and(eq(ticketMessages.orgId, org.org_id), eq(ticketMessages.ticketId, first.routing.ticket_id)));
  expect(messages.map((m) => m.body)).toContain("Hello? Still waiting for a human");
});

test("new sessions asking for a person spend the ticket quota: past it, 429 and no ticket", async () => {
  const before = (await orgTickets()).length; // 1 ticket of the 3 allowed this minute
  for (let i = 0; i < 2; i++) expect((await chat(app, org, { message: "talk to a human", mode: "livehelp" })).status).toBe(200);
  const refused = await chat(app, org, { message: "talk to a human", mode: "livehelp" });
  expect(refused.status).toBe(429);
  expect(refused.headers.get("retry-after")).not.toBeNull();
  expect((await orgTickets()).length).toBe(before + 2);
});
