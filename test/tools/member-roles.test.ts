// A token never does more than the member who authorised it may do in the dashboard: each scope's
// tools also need the matching role (src/oauth/scopes.ts SCOPE_ROLES), checked on every call from
// the org snapshot, so a token whose member lacks the role neither lists nor calls the tool.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { members, memberships } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { rpc, tokensFor } from "../support/oauth.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let knowledgeOnly: string;
let admin: string;

const SCOPE = "docs:read data:read inbox:read";

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  const email = `reader-${crypto.randomUUID()}@example.com`;
  const password = `pw-${crypto.randomUUID()}`;
  const [member] = await app.deps.db
    .insert(members)
    .values({ email, name: "Reader", passwordHash: await app.deps.passwords.hash(password) })
    .returning();
  await app.deps.db.insert(memberships).values({ orgId: org.org_id, memberId: member!.id, roles: ["knowledge:view"] });
  knowledgeOnly = (await tokensFor(app, { admin_email: email, password }, SCOPE)).accessToken;
  admin = (await tokensFor(app, org, SCOPE)).accessToken;
}, 30_000);
afterAll(() => app.close());

const names = async (token: string) => {
  const { body } = await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/list" });
  return (body.result.tools as { name: string }[]).map((t) => t.name);
};

test("a member with only knowledge:view: the token lists and calls the knowledge tools, not customer data or tickets", async () => {
  const listed = await names(knowledgeOnly);
  expect(listed).toContain("search_docs");
  expect(listed.filter((n) => n.startsWith("data_") || n.startsWith("inbox_"))).toEqual([]);

  const { res, body } = await rpc(app, knowledgeOnly, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "data_search_users", arguments: {} } });
  expect(res.status).toBe(200); // a refusal in the JSON-RPC body; not insufficient_scope: the token has the scope
  expect(body.error.code).toBe(-32002);
  expect(body.error.message).toContain("inbox:view");
});

test("the admin's token with the same scopes reaches them (the difference is the role, not the scope)", async () => {
  const listed = await names(admin);
  expect(listed).toContain("data_search_users");
  expect(listed).toContain("inbox_list_tickets");
});
