// The official SDK client, after the OAuth flow, lists our tools and calls search_docs and a
// custom HTTP action; each result arrives as one text block.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { createDoc } from "../../src/knowledge/docs.ts";
import { seedOrg, serveTestApp, signIn, type ServedTestApp } from "../support/app.ts";
import { connectWithOAuth, TestOAuthProvider } from "../support/mcp-client.ts";
import { Browserless, consentFields } from "../support/oauth.ts";
import { rejectionOf } from "../support/settle.ts";

let app: ServedTestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let partner: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  // Development mode lets the custom action reach a loopback server standing in for the partner's API.
  app = await serveTestApp({ NODE_ENV: "development" });
  org = await seedOrg(app);
  await createDoc(app.deps, org.org_id, { title: "Delivery areas", body: "We deliver to every city in the country within three days." });
  partner = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (r) => Response.json({ order: new URL(r.url).searchParams.get("number"), state: "shipped" }),
  });
  app.hosts.set("orders.partner.example", ["127.0.0.1"]);
  const session = await signIn(app, org.admin_email, org.password);
  const res = await app.request("/api/integrations/custom-actions", {
    json: {
      slug: "order_status",
      description: "Status of an order",
      method: "GET",
      url: `http://orders.partner.example:${partner.port}/status`,
      destructive: false,
      input_schema: { type: "object", properties: { number: { type: "string" } }, required: ["number"] },
    },
    headers: { authorization: `Bearer ${session}` },
  });
  expect(res.status).toBe(201);
}, 30_000);
afterAll(async () => {
  partner.stop(true);
  await app.close();
});

async function authorizeAsPerson(url: URL): Promise<string> {
  const ua = new Browserless(app);
  await ua.signIn(org.admin_email, org.password);
  const page = await (await ua.get(url.pathname + url.search)).text();
  const answer = await ua.post("/api/mcp/oauth/consent", { ...consentFields(page), decision: "allow" });
  return new URL(answer.headers.get("location")!).searchParams.get("code")!;
}

test("SDK client: tools/list, search_docs and a custom HTTP action, each one text block", async () => {
  const { client } = await connectWithOAuth(app.url, new TestOAuthProvider("http://127.0.0.1:53690/callback"), authorizeAsPerson);
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).toContain("search_docs");
  expect(names).toContain("custom.order_status");

  const search = await client.callTool({ name: "search_docs", arguments: { query: "do you deliver to my city" } });
  const searchContent = search.content as { type: string; text: string }[];
  expect(searchContent).toHaveLength(1);
  expect(JSON.parse(searchContent[0]!.text).results[0].title).toBe("Delivery areas");

  const order = await client.callTool({ name: "custom.order_status", arguments: { number: "A-42" } });
  const orderContent = order.content as { type: string; text: string }[];
  expect(order.isError).toBe(false);
  expect(orderContent).toHaveLength(1);
  expect(JSON.parse(orderContent[0]!.text)).toEqual({ status: 200, body: { order: "A-42", state: "shipped" } });
}, 30_000);

test("SDK client: read_doc with an unknown id is a JSON-RPC error naming what was not found (-32601, interface 7.1), not a transport failure", async () => {
  const { client } = await connectWithOAuth(app.url, new TestOAuthProvider("http://127.0.0.1:53691/callback"), authorizeAsPerson);
  const id = crypto.randomUUID();
  const error = await rejectionOf(client.callTool({ name: "read_doc", arguments: { id } }));
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).code).toBe(-32601);
  expect(error.message).toContain(`No published article with id ${id}`);
  await client.close();
});
