// inbox_reply over the tool server (JSON-RPC with an OAuth token) with translate: true, against a
// loopback LibreTranslate: the reply is stored in the customer's language with the original kept;
// a refusal is a result saying so (isError) with nothing sent; a call bound to a customer may not
// ask for translation; without translate the tool is unchanged.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { ticketMessages } from "../../src/db/schema/index.ts";
import { createTicket } from "../../src/inbox/tickets.ts";
import { setTranslation } from "../../src/translation/settings.ts";
import { storedTexts } from "../../src/translation/store.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { rpc, tokensFor } from "../support/oauth.ts";
import { type InboxOrg, seedCustomer, seedInboxOrg } from "../inbox/helpers.ts";
import { fakeLibreTranslate, type FakeTranslator } from "./fakes.ts";

let app: TestApp;
let fake: FakeTranslator;
let org: InboxOrg;
let token: string;
let ticketId: string;
let customerId: string;

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development" });
  fake = await fakeLibreTranslate();
  org = await seedInboxOrg(app, ["mcp_destructive_tools"]);
  await setTranslation(
    app.deps,
    org.org_id,
    { kind: "member", memberId: org.admin_id },
    { provider: "libretranslate", base_url: fake.baseUrl, api_key: fake.key },
  );
  const customer = await seedCustomer(app, org.org_id, { externalId: "ext-lucia", email: "lucia@cliente.example", name: "Lucía" });
  customerId = customer.id;
  const ticket = await createTicket(app.deps, {
    orgId: org.org_id,
    actor: { kind: "customer", endUserId: customer.id },
    input: { subject: "Factura", message: "Hola, me cobraron dos veces la factura de marzo y necesito ayuda.", customerId: customer.id, source: "api" },
  });
  ticketId = ticket.id;
  ({ accessToken: token } = await tokensFor(app, org, "inbox:read inbox:write"));
}, 60_000);
afterAll(async () => {
  await fake.close();
  await app.close();
});

async function call(args: Record<string, unknown>, meta?: Record<string, unknown>) {
  const { body } = await rpc(app, token, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "inbox_reply", arguments: args, ...(meta ? { _meta: meta } : {}) },
  });
  return body as { result?: { content: { text: string }[]; isError: boolean }; error?: { code: number; message: string } };
}
const replies = () =>
  app.deps.db
    .select({ id: ticketMessages.id, body: ticketMessages.body })
    .from(ticketMessages)
    .where(and(eq(ticketMessages.ticketId, ticketId), eq(ticketMessages.kind, "reply")));

test("translate: true sends the reply in Spanish and keeps the original; a refusal sends nothing and says why", async () => {
  const list = (await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).body as { result: { tools: { name: string; inputSchema: any }[] } };
  expect(list.result.tools.find((t) => t.name === "inbox_reply")!.inputSchema.properties.translate).toMatchObject({ type: "boolean" });

  fake.refuse(403);
  const refused = await call({ ticket: ticketId, body: "We are on it.", translate: true });
  expect(refused.result!.isError).toBe(true);
  expect(JSON.parse(refused.result!.content[0]!.text)).toMatchObject({ error: "translation_failed" });
  expect(JSON.parse(refused.result!.content[0]!.text).message).toMatch(/refused.*403.*The reply was not sent\./);
  expect(await replies()).toEqual([]);

  fake.next("Estamos en ello.");
  const sent = await call({ ticket: ticketId, body: "We are on it.", translate: true });
  expect(sent.result!.isError).toBe(false);
  expect(JSON.parse(sent.result!.content[0]!.text)).toMatchObject({ body: "Estamos en ello.", original: { language: "en", body: "We are on it." } });
  expect(fake.requests.at(-1)!.body).toMatchObject({ q: "We are on it.", source: "en", target: "es" });
  const [reply] = await replies();
  expect(reply!.body).toBe("Estamos en ello.");
  expect(await storedTexts(app.deps, org.org_id, [reply!.id])).toMatchObject([
    { kind: "original", language: "en", otherLanguage: "es", text: "We are on it." },
  ]);

  // Without translate: as written, the translator not asked.
  const asked = fake.requests.length;
  const plain = await call({ ticket: ticketId, body: "Thanks." });
  expect(plain.result!.isError).toBe(false);
  expect(fake.requests.length).toBe(asked);
  expect((await replies()).map((r) => r.body).sort()).toEqual(["Estamos en ello.", "Thanks."]);
});

test("a call bound to a customer may not ask for translation", async () => {
  const bound = await call({ ticket: ticketId, body: "Hola", translate: true }, { bound_end_user_id: customerId });
  expect(bound.error?.code).toBe(-32602);
  expect(await replies()).toHaveLength(2);
});
