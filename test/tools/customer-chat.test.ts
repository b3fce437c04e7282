// A customer's chat acts for that customer only, whoever calls the runtime for it (
// docs/decisions.md "Chat tools"): the runtime itself refuses a customer actor the admin areas
// (setup_*, automation_*) and, unbound, the customer-data areas (data_*, inbox_*) — which would
// otherwise see every customer of the org. Listing and calling agree.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { actionExecutions } from "../../src/db/schema/index.ts";
import type { CallScope } from "../../src/tools/runtime.ts";
import { createCustomAction } from "../../src/integrations/custom-actions.ts";
import { setAgentActions } from "../../src/tools/toggles.ts";
import { boundCustomerOf, identifyEndUser } from "../../src/customers/records.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { appErrorOf } from "../support/errors.ts";

let app: TestApp;
let orgId: string;
let agentId: string;
let alice: Awaited<ReturnType<typeof identifyEndUser>>;

beforeAll(async () => {
  app = await createTestApp();
  const org = await seedOrg(app);
  orgId = org.org_id;
  agentId = org.agent_id;
  alice = await identifyEndUser(app.deps, orgId, "alice-1", true, { email: "alice@example.com", name: "Alice" });
  await identifyEndUser(app.deps, orgId, "bob-2", true, { email: "bob@example.com", name: "Bob" });
}, 30_000);
afterAll(() => app.close());

const anonymous = (): CallScope => ({ actor: { kind: "customer", endUserId: null, sessionId: crypto.randomUUID() }, orgId, channel: "chat" });
const bound = (): CallScope => ({
  ...anonymous(),
  actor: { kind: "customer", endUserId: alice.id, sessionId: crypto.randomUUID() },
  customer: boundCustomerOf(alice),
});

const refusal = (scope: CallScope, name: string, args: unknown) => appErrorOf(app.deps.tools.call(scope, name, args));

test("an anonymous visitor's chat neither lists nor calls customer-data or admin tools", async () => {
  const names = (await app.deps.tools.list(anonymous())).map((t) => t.name);
  expect(names).toContain("search_docs");
  for (const name of names) expect(name).not.toMatch(/^(data_|inbox_|setup_|automation_)/);

  const error = await refusal(anonymous(), "data_search_users", { query: "" });
  expect(error.status).toBe(403);
  expect(error.reason).toBe("customer");
  const [row] = await app.deps.db
    .select()
    .from(actionExecutions)
    .where(and(eq(actionExecutions.orgId, orgId), eq(actionExecutions.tool, "data_search_users")));
  expect(row?.outcome).toBe("denied"); // refused, and still audited
});

test("bound to a customer, data tools run and see only that customer; admin tools stay refused", async () => {
  const names = (await app.deps.tools.list(bound())).map((t) => t.name);
  expect(names).toContain("data_get_user");
  expect(names.some((n) => n.startsWith("setup_") || n.startsWith("automation_"))).toBe(false);

  const result = await app.deps.tools.call(bound(), "data_search_users", { query: "" });
  const users = (result.value as { users: { external_id?: string }[] }).users;
  expect(users.map((u) => u.external_id)).toEqual(["alice-1"]);

  expect((await refusal(bound(), "automation_list_campaigns", {})).reason).toBe("customer");
});

test("the same tools over MCP or from the dashboard are not limited by the chat rule", async () => {
  const member: CallScope = { actor: { kind: "system", name: "test" }, orgId, channel: "dashboard" };
  const result = await app.deps.tools.call(member, "data_search_users", { query: "" });
  expect((result.value as { users: unknown[] }).users.length).toBe(2);
});

test("an integration action (custom or connector) runs in a chat only once an admin switched it on for the agent", async () => {
  app.hosts.set("orders.shop.example", ["93.184.216.34"]);
  await createCustomAction(app.deps, orgId, {
    slug: "order_status",
    description: "Look up an order.",
    method: "GET",
    url: "https://orders.shop.example/status",
    destructive: false,
  });
  app.deps.tools.invalidate(orgId);
  const member: CallScope = { actor: { kind: "system", name: "test" }, orgId, channel: "dashboard" };
  expect((await app.deps.tools.list(member)).map((t) => t.name)).toContain("custom.order_status"); // on by default elsewhere
  expect((await app.deps.tools.list(bound())).map((t) => t.name)).not.toContain("custom.order_status");
  expect((await refusal(anonymous(), "custom.order_status", {})).reason).toBe("toggle");

  await setAgentActions(app.deps, orgId, { kind: "system", name: "test" }, agentId, { enable: ["custom.order_status"] });
  expect((await app.deps.tools.list(anonymous())).map((t) => t.name)).toContain("custom.order_status");
});
