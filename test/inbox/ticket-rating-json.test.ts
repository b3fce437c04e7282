// A ticket's JSON carries the customer's rating (README "Inbox", "CSAT"): GET /api/tickets/{id} and
// every row of GET /api/tickets answer `rating: {score, comment, rated_at}` once the customer rated
// it, `null` before; the routes' response schemas say so in GET /api/openapi.json.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../support/chat.ts";

let app: TestApp;
let org: ChatOrg;
let auth: Record<string, string>;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedChatOrg(app, { docs: false });
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
}, 120_000);
afterAll(() => app.close());

type Rated = { id: string; rating: { score: number; comment: string | null; rated_at: string } | null };

test("null until the customer rates; then score, comment and when, on the ticket and in the list", async () => {
  const { session_id: sessionId, routing } = await chatJson(app, org, { message: "I want to talk to a person" });
  const ticketId = routing.ticket_id as string;
  const one = async () => (await (await app.request(`/api/tickets/${ticketId}`, { headers: auth })).json()) as Rated;
  const row = async () =>
    ((await (await app.request("/api/tickets", { headers: auth })).json()) as { tickets: Rated[] }).tickets.find((t) => t.id === ticketId)!;
  expect((await one()).rating).toBeNull();
  expect((await row()).rating).toBeNull();

  expect((await app.request(`/api/tickets/${ticketId}/replies`, { headers: auth, json: { body: "Sorted, see your account." } })).status).toBe(201);
  expect((await app.request(`/api/tickets/${ticketId}`, { method: "PATCH", headers: auth, json: { status: "resolved" } })).status).toBe(200);
  const rated = await app.request(`/api/sdk/conversations/${sessionId}/rating`, {
    headers: { authorization: `Bearer ${org.widget_key}` },
    json: { score: 4, comment: "Quick, thanks" },
  });
  expect(rated.status).toBe(200);

  const expected = { score: 4, comment: "Quick, thanks", rated_at: app.clock.now.toISOString() };
  expect((await one()).rating).toEqual(expected);
  expect((await row()).rating).toEqual(expected);

  const doc = (await (await app.request("/api/openapi.json")).json()) as any;
  const schema = doc.paths["/api/tickets/{id}"].get.responses["200"].content["application/json"].schema;
  expect(JSON.stringify(schema)).toContain("rated_at");
});
