// The tool server per MCP revision (docs/interface.md 4.2, A.3): initialize negotiates 2025-03-26,
// 2025-06-18 and 2025-11-25 (an unknown proposal gets the latest); from 2025-06-18 no batches, the
// tool's title and outputSchema, structuredContent valid against it (Ajv); 2026-07-28 served
// statelessly with its header rules, server/discover, resultType and cache hints. And every tool's
// hints against its declared effect.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { companies } from "../../src/db/schema/index.ts";
import { createDoc } from "../../src/knowledge/docs.ts";
import { createTicket } from "../../src/inbox/tickets.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { rpc, tokensFor } from "../support/oauth.ts";
import { seedCustomer } from "../inbox/helpers.ts";
import { step } from "../campaigns/helpers.ts";

type Json = Record<string, any>;
const ALL = "docs:read data:read data:write inbox:read inbox:write automation:read automation:write setup:read setup:write actions:read actions:write";

let app: TestApp;
let token: string;
let orgId: string;
let fixtures: { user: string; company: string; ticket: string; doc: string };

beforeAll(async () => {
  app = await createTestApp();
  const org = await seedOrg(app, { flags: ["mcp_destructive_tools"] });
  orgId = org.org_id;
  token = (await tokensFor(app, org, ALL)).accessToken;
  const doc = await createDoc(app.deps, org.org_id, { title: "Shipping times", body: "Orders ship within two business days." });
  const [company] = await app.deps.db.insert(companies).values({ orgId: org.org_id, externalId: "acme", name: "Acme" }).returning();
  const user = await seedCustomer(app, org.org_id, { externalId: "ext-ada", email: "ada@example.com", name: "Ada" });
  const ticket = await createTicket(app.deps, {
    orgId: org.org_id,
    actor: { kind: "customer", endUserId: user.id, sessionId: "s" },
    input: { subject: "Late parcel", message: "Where is it?", source: "widget", customerId: user.id },
  });
  fixtures = { user: user.id, company: company!.id, ticket: ticket.id, doc: doc.id };
  const created = await rpc(app, token, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "automation_create_campaign",
      arguments: { name: "Onboarding", slug: "onboarding", sender: { name: "Acme" }, steps: [step("Welcome", 0)] },
    },
  });
  expect(created.body.result.isError).toBe(false);
}, 30_000);
afterAll(() => app.close());

const initialize = (protocolVersion: string) =>
  rpc(app, token, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } } });
const META = "io.modelcontextprotocol/protocolVersion";
const modern = (method: string, params: Json = {}, id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  params: { ...params, _meta: { [META]: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
});
const modernHeaders = (method: string, name?: string) => ({
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...(name ? { "mcp-name": name } : {}),
});

describe("initialize negotiates each handshake revision", () => {
  test("2025-06-18 and 2025-11-25 get themselves back, with that revision's serverInfo", async () => {
    const june = (await initialize("2025-06-18")).body.result;
    expect(june.protocolVersion).toBe("2025-06-18");
    expect(june.serverInfo).toEqual({ name: "svc-agents", version: "1.0.0", title: "Support agents" });
    const nov = (await initialize("2025-11-25")).body.result;
    expect(nov.protocolVersion).toBe("2025-11-25");
    expect(nov.serverInfo).toMatchObject({ name: "svc-agents", version: "1.0.0", title: "Support agents", websiteUrl: "http://localhost:3000" });
    expect(nov.serverInfo.icons[0]).toMatchObject({ mimeType: "image/svg+xml", sizes: ["any"] });
    expect(nov.serverInfo.icons[0].src).toStartWith("data:image/svg+xml;base64,");
  });

  test("an unknown proposal gets the latest handshake revision; 2026-07-28 in initialize too (it has no initialize)", async () => {
    expect((await initialize("2099-01-01")).body.result.protocolVersion).toBe("2025-11-25");
    expect((await initialize("2026-07-28")).body.result.protocolVersion).toBe("2025-11-25");
    expect((await initialize("2024-11-05")).body.result.protocolVersion).toBe("2025-11-25");
  });

  test("from 2025-06-18 a batch is refused (400, -32600); under 2025-03-26 it still runs", async () => {
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ];
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const { res, body } = await rpc(app, token, batch, { "mcp-protocol-version": version });
      expect(res.status).toBe(400);
      expect(body.error.code).toBe(-32600);
    }
    const old = await rpc(app, token, batch, { "mcp-protocol-version": "2025-03-26" });
    expect(old.res.status).toBe(200);
    expect(old.body).toHaveLength(2);
  });
});

describe("tools per revision", () => {
  test("2025-03-26 lists no outputSchema and no top-level title; 2025-06-18 lists both", async () => {
    const old = (await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).body.result.tools as Json[];
    expect(old.every((t) => t.outputSchema === undefined && t.title === undefined)).toBe(true);
    const june = (await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-protocol-version": "2025-06-18" })).body.result.tools as Json[];
    const search = june.find((t) => t.name === "search_docs")!;
    expect(search.title).toBe("Search the knowledge base");
    expect(search.outputSchema.type).toBe("object");
  });

  test("2025-03-26 tools/call has the text block only; 2025-06-18 adds structuredContent equal to it", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_docs", arguments: { query: "shipping" } } };
    const old = (await rpc(app, token, call)).body.result;
    expect(Object.keys(old).sort()).toEqual(["content", "isError"]);
    const june = (await rpc(app, token, call, { "mcp-protocol-version": "2025-06-18" })).body.result;
    expect(june.structuredContent.results[0].title).toBe("Shipping times");
    expect(JSON.parse(june.content[0].text)).toEqual(june.structuredContent);
  });

  test("readOnlyHint is true on every tool that only reads and on none that writes (its scope declares which)", async () => {
    const tools = (await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).body.result.tools as Json[];
    // The declared effect: the scope each definition needs (docs/interface.md 2.3: one read and one write scope per family).
    const declared = new Map((await app.deps.tools.catalog(orgId)).map((t) => [t.name, t.scope]));
    const builtins = tools.filter((t) => !t.name.includes("."));
    expect(builtins.length).toBeGreaterThanOrEqual(26);
    for (const tool of builtins) {
      const scope = declared.get(tool.name);
      expect(SCOPE_OF[tool.name], tool.name).toBe(scope!);
      expect(scope, tool.name).toBeDefined();
      expect({ name: tool.name, readOnlyHint: tool.annotations.readOnlyHint }).toEqual({ name: tool.name, readOnlyHint: scope!.endsWith(":read") });
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"])
        expect(typeof tool.annotations[hint], `${tool.name} ${hint}`).toBe("boolean");
      expect(typeof tool.annotations.title).toBe("string");
      // A read-only tool is never destructive (the spec ignores destructiveHint then, we say it too).
      if (tool.annotations.readOnlyHint) expect(tool.annotations.destructiveHint).toBe(false);
    }
  });

  test("structuredContent validates against outputSchema for every tool that declares one (Ajv, JSON Schema 2020-12)", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const tools = (await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-protocol-version": "2025-11-25" })).body.result
      .tools as Json[];
    const declaring = tools.filter((t) => t.outputSchema);
    expect(declaring.map((t) => t.name).sort()).toEqual(Object.keys(ARGS).sort());
    for (const tool of declaring) {
      const args = ARGS[tool.name]!(fixtures);
      const { body } = await rpc(
        app,
        token,
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool.name, arguments: args } },
        { "mcp-protocol-version": "2025-11-25" },
      );
      expect(body.result?.isError, `${tool.name}: ${JSON.stringify(body)}`).toBe(false);
      const validate = ajv.compile(tool.outputSchema);
      const valid = validate(body.result.structuredContent);
      expect({ tool: tool.name, errors: valid ? null : validate.errors }).toEqual({ tool: tool.name, errors: null });
    }
  });
});

describe("2026-07-28, statelessly", () => {
  test("server/discover names every version, the capabilities and who answers", async () => {
    const { res, body } = await rpc(app, token, modern("server/discover"), modernHeaders("server/discover"));
    expect(res.status).toBe(200);
    expect(body.result).toMatchObject({
      resultType: "complete",
      supportedVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
      capabilities: { tools: {} },
      cacheScope: "public",
    });
    expect(body.result.ttlMs).toBeGreaterThan(0);
    expect(body.result._meta["io.modelcontextprotocol/serverInfo"]).toMatchObject({ name: "svc-agents", title: "Support agents" });
  });

  test("tools/list and tools/call, no initialize: resultType, ttlMs/cacheScope (private: the list follows the token)", async () => {
    const list = await rpc(app, token, modern("tools/list"), modernHeaders("tools/list"));
    expect(list.body.result).toMatchObject({ resultType: "complete", cacheScope: "private" });
    expect(list.body.result.ttlMs).toBeGreaterThan(0);
    expect(list.body.result.tools.find((t: Json) => t.name === "read_doc").outputSchema).toBeDefined();
    const call = await rpc(app, token, modern("tools/call", { name: "read_doc", arguments: { id: fixtures.doc } }), modernHeaders("tools/call", "read_doc"));
    expect(call.res.status).toBe(200);
    expect(call.body.result).toMatchObject({ resultType: "complete", isError: false, structuredContent: { title: "Shipping times" } });
    // Mcp-Name in the Base64 sentinel form is decoded before it is compared.
    const encoded = await rpc(
      app,
      token,
      modern("tools/call", { name: "read_doc", arguments: { id: fixtures.doc } }),
      modernHeaders("tools/call", `=?base64?${btoa("read_doc")}?=`),
    );
    expect(encoded.body.result.isError).toBe(false);
  });

  test("header rules: a missing or different header → 400 with HeaderMismatch (-32020)", async () => {
    const cases: [Json, Record<string, string>][] = [
      [modern("tools/list"), { "mcp-protocol-version": "2026-07-28" }], // no Mcp-Method
      [modern("tools/list"), { ...modernHeaders("tools/list"), "mcp-method": "tools/call" }],
      [modern("tools/list"), { "mcp-method": "tools/list" }], // no MCP-Protocol-Version
      [modern("tools/call", { name: "read_doc", arguments: { id: fixtures.doc } }), modernHeaders("tools/call")], // no Mcp-Name
      [modern("tools/call", { name: "read_doc", arguments: { id: fixtures.doc } }), modernHeaders("tools/call", "search_docs")],
    ];
    for (const [message, headers] of cases) {
      const { res, body } = await rpc(app, token, message, headers);
      expect({ status: res.status, code: body.error?.code }).toEqual({ status: 400, code: -32020 });
    }
  });

  test("the header says 2026-07-28 but _meta lacks the version or the client's capabilities → 400, -32602", async () => {
    const noMeta = await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/list" }, modernHeaders("tools/list"));
    expect({ status: noMeta.res.status, code: noMeta.body.error?.code }).toEqual({ status: 400, code: -32602 });
    const noCapabilities = await rpc(
      app,
      token,
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: { [META]: "2026-07-28" } } },
      modernHeaders("tools/list"),
    );
    expect({ status: noCapabilities.res.status, code: noCapabilities.body.error?.code, id: noCapabilities.body.id }).toEqual({
      status: 400,
      code: -32602,
      id: 2,
    });
  });

  test("an unsupported _meta version → 400 UnsupportedProtocolVersion (-32022) listing what we support", async () => {
    const message = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/list",
      params: { _meta: { [META]: "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {} } },
    };
    const { res, body } = await rpc(app, token, message, { "mcp-protocol-version": "2099-01-01", "mcp-method": "tools/list" });
    expect(res.status).toBe(400);
    expect(body).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32022,
        message: "Unsupported protocol version",
        data: { supported: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"], requested: "2099-01-01" },
      },
    });
  });

  test("ping and initialize do not exist in 2026-07-28 (404, -32601); a batch is refused", async () => {
    for (const method of ["ping", "initialize"]) {
      const { res, body } = await rpc(app, token, modern(method), modernHeaders(method));
      expect({ status: res.status, code: body.error?.code }).toEqual({ status: 404, code: -32601 });
    }
    const batch = await rpc(app, token, [modern("tools/list")], modernHeaders("tools/list"));
    expect(batch.res.status).toBe(400);
    expect(batch.body.error.code).toBe(-32600);
  });

  test("2026-07-28: a tool's own failure stays in a 200, -32601 included (an unknown document, an unknown tool)", async () => {
    const id = crypto.randomUUID();
    const missing = await rpc(app, token, modern("tools/call", { name: "read_doc", arguments: { id } }), modernHeaders("tools/call", "read_doc"));
    expect({ status: missing.res.status, error: missing.body.error }).toEqual({
      status: 200,
      error: { code: -32601, message: `No published article with id ${id}.` },
    });
    const unknown = await rpc(app, token, modern("tools/call", { name: "no_such_tool", arguments: {} }), modernHeaders("tools/call", "no_such_tool"));
    expect({ status: unknown.res.status, code: unknown.body.error?.code }).toEqual({ status: 200, code: -32601 });
  });
});

const SCOPE_OF: Record<string, string> = {
  search_docs: "docs:read",
  read_doc: "docs:read",
  data_search_users: "data:read",
  data_get_user: "data:read",
  data_get_company: "data:read",
  data_update_user: "data:write",
  data_update_company: "data:write",
  inbox_list_tickets: "inbox:read",
  inbox_get_ticket: "inbox:read",
  inbox_list_saved_replies: "inbox:read",
  inbox_reply: "inbox:write",
  inbox_add_note: "inbox:write",
  inbox_triage: "inbox:write",
  inbox_outreach: "inbox:write",
  automation_list_campaigns: "automation:read",
  automation_get_campaign: "automation:read",
  automation_preview_campaign: "automation:read",
  automation_create_campaign: "automation:write",
  automation_edit_campaign: "automation:write",
  automation_activate_campaign: "automation:write",
  automation_pause_campaign: "automation:write",
  setup_status: "setup:read",
  setup_get_install_snippet: "setup:read",
  setup_update_agent: "setup:write",
  setup_add_doc: "setup:write",
  setup_import_doc_from_url: "setup:write",
  setup_configure_widget: "setup:write",
};

const ARGS: Record<string, (f: typeof fixtures) => Json> = {
  search_docs: () => ({ query: "shipping" }),
  read_doc: (f) => ({ id: f.doc }),
  data_search_users: () => ({ query: "ada" }),
  data_get_user: (f) => ({ user_id: f.user }),
  data_get_company: (f) => ({ company_id: f.company }),
  data_update_user: (f) => ({ user_id: f.user, traits: { plan: "pro" } }),
  data_update_company: (f) => ({ company_id: f.company, name: "Acme Ltd" }),
  inbox_list_tickets: () => ({}),
  inbox_get_ticket: (f) => ({ ticket: f.ticket }),
  automation_list_campaigns: () => ({}),
  automation_get_campaign: () => ({ campaign: "onboarding" }),
};
