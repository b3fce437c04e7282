// The ticket a chat opens at hand-off is filed under the reason for it (README "Inbox"): the message
// that asked for a person, not the chat's first message.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { tickets } from "../../../src/db/schema/index.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../../support/chat.ts";

let app: TestApp;
let org: ChatOrg;
beforeAll(async () => {
  app = await createTestApp();
  org = await seedChatOrg(app, { docs: false });
}, 30_000);
afterAll(() => app.close());

test("the subject is the message that asked for a person, without the request", async () => {
  const first = await chatJson(app, org, { message: "What are your opening hours?", user_id: "subject-1" });
  const handed = await chatJson(app, org, {
    message: "My parcel arrived broken,\nI want to talk to a person",
    user_id: "subject-1",
    session_id: first.session_id,
  });
  expect(handed.routing.ticket_id).toBeString();
  const [ticket] = await app.deps.db.select().from(tickets).where(eq(tickets.id, handed.routing.ticket_id));
  expect(ticket!.subject).toBe("My parcel arrived broken");
});
