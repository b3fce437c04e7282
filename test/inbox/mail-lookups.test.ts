// The ticket reads inbound email makes: which tickets our message ids name, which of them is the
// sender's, and a new ticket's first message; never across orgs.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { firstMessageId, ticketOfCustomerAddress, ticketsOfMessages } from "../../src/inbox/mail-lookups.ts";
import { createTicketRow } from "../../src/inbox/tickets.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { seedCustomer, seedInboxOrg } from "./helpers.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(() => app.close());

test("tickets of our messages, the sender's ticket by address, and the first message", async () => {
  const org = await seedInboxOrg(app);
  const other = await seedInboxOrg(app);
  const ada = await seedCustomer(app, org.org_id, { email: "ada@lookups.example", name: "Ada" });
  const bob = await seedCustomer(app, org.org_id, { email: "bob@lookups.example" });
  const actor = { kind: "member" as const, memberId: org.admin_id };
  const input = (customerId: string) => ({ subject: "Hello", message: "First", customerId, source: "api" as const });
  const first = await createTicketRow(app.deps, { orgId: org.org_id, actor, input: input(ada.id) });
  const second = await createTicketRow(app.deps, { orgId: org.org_id, actor, input: input(ada.id) });
  const bobs = await createTicketRow(app.deps, { orgId: org.org_id, actor, input: input(bob.id) });

  const firstMessage = await firstMessageId(app.deps.db, org.org_id, first.id);
  expect(firstMessage).toEqual(expect.any(String));
  expect(await firstMessageId(app.deps.db, other.org_id, first.id)).toBeNull();
  expect(await ticketsOfMessages(app.deps.db, org.org_id, [firstMessage!])).toEqual([first.id]);
  expect(await ticketsOfMessages(app.deps.db, other.org_id, [firstMessage!])).toEqual([]);
  expect(await ticketsOfMessages(app.deps.db, org.org_id, [])).toEqual([]);

  // The lowest-numbered of the named tickets whose customer has exactly that address.
  expect(await ticketOfCustomerAddress(app.deps.db, org.org_id, [second.id, first.id, bobs.id], "ada@lookups.example")).toEqual({
    ticketId: first.id,
    endUserId: ada.id,
  });
  expect(await ticketOfCustomerAddress(app.deps.db, org.org_id, [bobs.id], "ada@lookups.example")).toBeNull();
  expect(await ticketOfCustomerAddress(app.deps.db, other.org_id, [first.id], "ada@lookups.example")).toBeNull();
});
