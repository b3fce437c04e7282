// The member's event streams and their caps (README, GET /api/tickets/events and
// GET /api/tickets/{id}/events): each kind has its own SDK_STREAMS_PER_KEY_IP budget, so dashboard
// tabs following the org's events (every page does, for the navigation's queue counts) never take
// the place of a ticket thread's stream; past either budget, 429 too_many_streams. A conversation
// page's presence stream (GET /api/conversations/{id}/presence) is counted like a ticket's.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { tickets } from "../../src/db/schema/index.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../support/chat.ts";
import { readEvents } from "../support/sse.ts";
import { addMember } from "./helpers.ts";

let app: TestApp;
let org: ChatOrg;
let token: string;
beforeAll(async () => {
  app = await createTestApp({ SDK_STREAMS_PER_KEY_IP: "2" });
  org = await seedChatOrg(app, { docs: false });
  token = await signIn(app, org.admin_email, org.password);
}, 30_000);
afterAll(() => app.close());

test("org streams at their cap leave the ticket streams theirs; one over either cap is 429; a closed one frees its place", async () => {
  const ticketId = (await chatJson(app, org, { message: "I want to talk to a person", user_id: "budget-1" })).routing.ticket_id as string;
  const open = (path: string) => app.request(path, { headers: { authorization: `Bearer ${token}` } });
  const orgStreams = [await open("/api/tickets/events"), await open("/api/tickets/events")];
  expect(orgStreams.map((r) => r.status)).toEqual([200, 200]);
  const third = await open("/api/tickets/events");
  expect(third.status).toBe(429);
  expect(((await third.json()) as { error: { code: string } }).error.code).toBe("too_many_streams");
  // Two tabs on the org's events: a ticket thread still opens, up to its own cap.
  const ticketStreams = [await open(`/api/tickets/${ticketId}/events`), await open(`/api/tickets/${ticketId}/events`)];
  expect(ticketStreams.map((r) => r.status)).toEqual([200, 200]);
  expect((await open(`/api/tickets/${ticketId}/events`)).status).toBe(429);
  const closing = readEvents(orgStreams[0]!);
  closing.close();
  let again = await open("/api/tickets/events");
  for (let i = 0; again.status === 429 && i < 50; i++) {
    await Bun.sleep(20);
    again = await open("/api/tickets/events");
  }
  expect(again.status).toBe(200);
  for (const res of [orgStreams[1]!, again, ...ticketStreams]) readEvents(res).close();
});

test("presence streams are counted like a ticket's: at the cap they open, one over is 429, and a ticket stream then waits too", async () => {
  const ticketId = (await chatJson(app, org, { message: "I want to talk to a person", user_id: "budget-2" })).routing.ticket_id as string;
  const [ticket] = await app.deps.db.select().from(tickets).where(eq(tickets.id, ticketId));
  // A member of their own, so the streams of the test above (closing) hold no place.
  const viewer = (await addMember(app, org.org_id, ["inbox:view"])).token;
  const open = (path: string) => app.request(path, { headers: { authorization: `Bearer ${viewer}` } });
  const presence = [await open(`/api/conversations/${ticket!.conversationId}/presence`), await open(`/api/conversations/${ticket!.conversationId}/presence`)];
  expect(presence.map((r) => r.status)).toEqual([200, 200]);
  const over = await open(`/api/conversations/${ticket!.conversationId}/presence`);
  expect(over.status).toBe(429);
  expect(over.headers.get("retry-after")).toBe("3");
  expect(((await over.json()) as { error: { code: string } }).error.code).toBe("too_many_streams");
  expect((await open(`/api/tickets/${ticketId}/events`)).status).toBe(429);
  for (const res of presence) readEvents(res).close();
});
