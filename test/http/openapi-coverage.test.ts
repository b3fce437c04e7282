// Every operation of GET /api/openapi.json is findable and readable: it has a tag (the viewer at
// /api/docs groups by tag), a summary, and a 2xx response: a schema for its media type (JSON, an
// event stream, CSV, plain text, audio), or 204.
import { afterAll, beforeAll, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import { Elysia, t } from "elysia";
import { openapiDocument } from "../../src/openapi.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { adminOf, get } from "../dashboard/helpers.ts";

type Json = Record<string, any>;
let app: TestApp;
let doc: Json;

beforeAll(async () => {
  app = await createTestApp();
  doc = await (await app.request("/api/openapi.json")).json();
}, 30_000);
afterAll(() => app.close());

function operations(document: Json): [string, Json][] {
  return Object.entries(document.paths as Json).flatMap(([path, ops]) =>
    Object.entries(ops as Json).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Json]),
  );
}

function untagged(document: Json): string[] {
  return operations(document)
    .filter(([, op]) => !Array.isArray(op.tags) || op.tags.length === 0)
    .map(([id]) => id);
}
function unsummarised(document: Json): string[] {
  return operations(document)
    .filter(([, op]) => typeof op.summary !== "string" || op.summary.trim() === "")
    .map(([id]) => id);
}
function withoutResponseSchema(document: Json): string[] {
  return operations(document)
    .filter(
      ([, op]) =>
        !Object.entries(op.responses as Json).some(
          ([status, r]) => status.startsWith("2") && (status === "204" || Object.values((r.content ?? {}) as Json).some((media) => media?.schema)),
        ),
    )
    .map(([id]) => id);
}

test("every operation has a tag and a summary", () => {
  expect(operations(doc).length).toBeGreaterThan(90);
  expect(untagged(doc)).toEqual([]);
  expect(unsummarised(doc)).toEqual([]);
});

test("the checks catch a planted operation with no tag, no summary and no response schema", () => {
  const planted = new Elysia()
    .get("/api/planted", () => ({ ok: true }))
    .get("/api/described", () => ({ ok: true }), { response: t.Object({ ok: t.Boolean() }), detail: { summary: "Described", tags: ["Planted"] } });
  const document = openapiDocument(planted.routes, { title: "t", version: "1", description: "", serverUrl: "http://localhost" });
  expect(untagged(document)).toEqual(["GET /api/planted"]);
  expect(unsummarised(document)).toEqual(["GET /api/planted"]);
  expect(withoutResponseSchema(document)).toEqual(["GET /api/planted"]);
});

test("the answers that are not JSON name their media type: event streams, the streamed chat, speech and the CSV report", () => {
  const media = (id: string) => {
    const [method, path] = id.split(" ") as [string, string];
    return Object.keys(doc.paths[path]?.[method.toLowerCase()]?.responses?.["200"]?.content ?? {});
  };
  expect(media("GET /api/sdk/conversations/{session_id}/events")).toEqual(["text/event-stream"]);
  expect(media("GET /api/tickets/{id}/events")).toEqual(["text/event-stream"]);
  expect(media("GET /api/tickets/events")).toEqual(["text/event-stream"]);
  expect(media("POST /api/sdk/chat/stream")).toEqual(["text/plain"]);
  expect(media("POST /api/sdk/voice/speech")).toEqual(["audio/*"]);
  expect(media("GET /api/reports/summary.csv")).toEqual(["text/csv"]);
  // The stored original of an email is answered as JSON (its text in `original`), not as message/rfc822.
  expect(media("GET /api/tickets/{id}/messages/{message_id}/email")).toEqual(["application/json"]);
  const email = doc.paths["/api/tickets/{id}/messages/{message_id}/email"].get.responses["200"].content["application/json"].schema;
  expect(Object.keys(email.properties)).toEqual(expect.arrayContaining(["message_id", "original", "attachments", "received_at"]));
});

// The operations still documented without a 2xx response schema. This list may only shrink: an
// operation missing from it fails the test, and so does one listed here that has gained a schema.
const NO_RESPONSE_SCHEMA_YET = new Set((await Bun.file(new URL("./openapi-no-response-schema.txt", import.meta.url)).text()).split("\n").filter(Boolean));

test("every other operation has a 2xx response schema (the remaining ones are listed, and the list only shrinks)", () => {
  const missing = withoutResponseSchema(doc);
  expect(missing.filter((id) => !NO_RESPONSE_SCHEMA_YET.has(id))).toEqual([]);
  expect([...NO_RESPONSE_SCHEMA_YET].filter((id) => !missing.includes(id))).toEqual([]);
});

test("the viewer is served at /api/docs to a browser, the JSON API stays for clients, and the dashboard links to it", async () => {
  const page = await app.request("/api/docs", { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toContain("text/html");
  const text = await page.text();
  expect(text).toContain('src="/assets/api-docs/swagger-ui-bundle.js"');
  expect(text).not.toMatch(/<script>[^<]/); // no inline script: the viewer is started by /assets/api-docs/init.js
  expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
  expect((await app.request("/assets/api-docs/swagger-ui-bundle.js")).headers.get("content-type")).toContain("javascript");
  expect((await app.request("/assets/api-docs/init.js")).status).toBe(200);
  // A client of the knowledge base's API (no Accept, or JSON, or a bearer token) gets that API.
  expect((await app.request("/api/docs")).status).toBe(401);
  expect((await app.request("/api/docs", { headers: { accept: "text/html", authorization: "Bearer x" } })).status).toBe(401);
  const admin = await adminOf(app);
  const dashboard = await (await get(app, admin, "/dashboard")).text();
  expect(dashboard).toContain('href="/api/docs"');
});

test("what the collection GETs answer matches their documented 200 schema", async () => {
  const org = await seedOrg(app);
  const session = await signIn(app, org.admin_email, org.password);
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const checked: string[] = [];
  const mismatches: string[] = [];
  for (const [id, op] of operations(doc)) {
    const [method, path] = id.split(" ") as [string, string];
    const schema = op.responses?.["200"]?.content?.["application/json"]?.schema;
    if (method !== "GET" || path.includes("{") || !schema) continue;
    if ((op.parameters ?? []).some((p: Json) => p.in === "query" && p.required)) continue;
    const auth = path.startsWith("/api/sdk/") ? org.widget_key : session;
    const res = await app.request(path, { headers: { authorization: `Bearer ${auth}` } });
    if (res.status !== 200) continue;
    const body = await res.json();
    const validate = ajv.compile(schema);
    if (!validate(body)) mismatches.push(`${id}: ${ajv.errorsText(validate.errors)}`);
    checked.push(id);
  }
  expect(checked).toEqual(expect.arrayContaining(["GET /api/webhooks/event-types", "GET /api/webhooks/endpoints"]));
  expect(mismatches).toEqual([]);
});

test('the live conversation\'s routes are documented with the errors they answer (README "Live conversation")', () => {
  const codes = (path: string, method: string) => Object.keys(doc.paths[path]?.[method]?.responses ?? {}).sort();
  expect(codes("/api/conversations/{id}/join", "post")).toEqual(["200", "400", "401", "403", "404"]);
  expect(codes("/api/conversations/{id}/presence", "get")).toEqual(["200", "400", "401", "403", "404", "429"]);
  expect(codes("/api/tickets/{id}/typing", "post")).toEqual(["200", "400", "401", "403", "404"]);
  expect(codes("/api/sdk/conversations/{session_id}/typing", "post")).toEqual(["200", "400", "401", "403", "404", "429"]);
  // The presence stream also carries the customer's typing.
  expect(doc.paths["/api/conversations/{id}/presence"].get.summary).toContain("`typing`");
});
