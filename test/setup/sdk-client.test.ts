// The official MCP SDK client, after the OAuth flow, runs setup_status, adds
// a document with setup_add_doc, and the org's chat endpoint (POST /api/sdk/chat with its widget
// key, builtin provider) then answers from that document and cites it as a source. setup_status
// sees the chat as widget traffic afterwards. (The browser widget version is the widget's test.)
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { connectWithOAuth, TestOAuthProvider } from "../support/mcp-client.ts";
import { Browserless, consentFields } from "../support/oauth.ts";

type Json = Record<string, any>;
let app: ServedTestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let client: Client;

beforeAll(async () => {
  app = await serveTestApp();
  org = await seedOrg(app);
  const authorize = async (url: URL) => {
    const ua = new Browserless(app);
    await ua.signIn(org.admin_email, org.password);
    const page = await (await ua.get(url.pathname + url.search)).text();
    const answer = await ua.post("/api/mcp/oauth/consent", { ...consentFields(page), decision: "allow" });
    return new URL(answer.headers.get("location")!).searchParams.get("code")!;
  };
  ({ client } = await connectWithOAuth(
    app.url,
    new TestOAuthProvider("http://127.0.0.1:53692/callback", async () => {}, { scope: "setup:read setup:write" }),
    authorize,
  ));
}, 30_000);
afterAll(async () => {
  await client?.close();
  await app.close();
});

async function tool(name: string, args: Json): Promise<Json> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBe(false);
  const content = result.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  return JSON.parse(content[0]!.text) as Json;
}

async function chat(message: string): Promise<Json> {
  const res = await app.request("/api/sdk/chat", { json: { message }, headers: { authorization: `Bearer ${org.widget_key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

const item = (status: Json, key: string) => status.items.find((i: Json) => i.key === key);

test("SDK client: setup_status, setup_add_doc, and the chat answers from the new doc with it as its source", async () => {
  const before = await tool("setup_status", {});
  expect(before.ready).toBe(false);
  expect(item(before, "active_agent").done).toBe(true);
  expect(item(before, "docs").done).toBe(false);

  // Without the document the agent has nothing to cite.
  const unknown = await chat("Are you open on Sunday, and until when?");
  expect(unknown.sources).toEqual([]);
  expect(unknown.text).not.toContain("16:00");

  const doc = await tool("setup_add_doc", {
    title: "Opening hours",
    url: "https://shop.example/help/hours",
    body: "# Opening hours\n\nOn weekdays the shop is open from 9:00 to 18:00.\n\nOn Sunday we are open from 10:00 until 16:00; on public holidays we are closed.",
  });
  expect(doc).toMatchObject({ title: "Opening hours", status: "published" });

  const answer = await chat("Are you open on Sunday, and until when?");
  expect(answer.text).toContain("16:00");
  expect(answer.sources).toContainEqual({ doc_id: doc.id, title: "Opening hours", url: "https://shop.example/help/hours" });

  // The chat went through the org's widget key: the checklist now counts the widget as installed.
  const after = await tool("setup_status", {});
  expect(item(after, "docs")).toMatchObject({ done: true, published: 1 });
  expect(item(after, "widget_installed")).toMatchObject({ done: true, traffic: { chats: true, last_chat_at: app.clock.now.toISOString() } });
  expect(after.ready).toBe(true);
}, 30_000);
