// GET /api/openapi.json: generated from the same TypeBox schemas that validate the
// routes, so every SDK payload is documented exactly as enforced.
import { afterAll, beforeAll, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import { toJsonSchema } from "../../src/openapi.ts";
import { CreateTicketBody, EventsBody, IdentifyCompanyBody, IdentifyUserBody, SdkConfig } from "../../src/sdk/schemas.ts";
import { createTestApp, type TestApp } from "../support/app.ts";

let app: TestApp;
let doc: any;

beforeAll(async () => {
  app = await createTestApp();
  const res = await app.request("/api/openapi.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  doc = await res.json();
}, 30_000);
afterAll(() => app.close());

test("an OpenAPI 3.1 document naming every SDK endpoint and the widget settings API", () => {
  expect(doc.openapi).toBe("3.1.0");
  const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`));
  for (const op of [
    "GET /api/sdk/config",
    "POST /api/sdk/users/identify",
    "POST /api/sdk/companies/identify",
    "POST /api/sdk/events",
    "POST /api/sdk/tickets/create",
    "POST /api/sdk/chat",
    "POST /api/sdk/chat/stream",
    "POST /api/sdk/series",
    "GET /api/widget/identity",
    "PUT /api/widget/identity",
    "POST /api/widget/identity/rotate",
    "DELETE /api/widget/identity/previous",
    "GET /api/widget/keys",
    "POST /api/widget/keys",
    "DELETE /api/widget/keys/{key_id}",
    "GET /api/widget/origins",
    "PUT /api/widget/origins",
  ])
    expect(operations).toContain(op);
  expect(doc.components.securitySchemes.widgetKey).toMatchObject({ type: "http", scheme: "bearer" });
  expect(doc.paths["/api/sdk/events"].post.security).toEqual([{ widgetKey: [] }]);
});

test("request and response schemas are the validating TypeBox schemas", () => {
  const body = (path: string) => doc.paths[path].post.requestBody.content["application/json"].schema;
  expect(body("/api/sdk/users/identify")).toEqual(toJsonSchema(IdentifyUserBody));
  expect(body("/api/sdk/companies/identify")).toEqual(toJsonSchema(IdentifyCompanyBody));
  expect(body("/api/sdk/events")).toEqual(toJsonSchema(EventsBody));
  expect(body("/api/sdk/tickets/create")).toEqual(toJsonSchema(CreateTicketBody));
  expect(doc.paths["/api/sdk/config"].get.responses["200"].content["application/json"].schema).toEqual(toJsonSchema(SdkConfig));
  expect(body("/api/sdk/events").properties.events.maxItems).toBe(100);
  expect(body("/api/sdk/users/identify").properties.custom_fields).toMatchObject({ type: "object", "x-max-depth": 8, "x-max-bytes": 16384 });
  const query = doc.paths["/api/sdk/config"].get.parameters;
  expect(query).toEqual([
    expect.objectContaining({ name: "org_id", in: "query", required: true }),
    expect.objectContaining({ name: "locale", in: "query", required: false }),
  ]);
  expect(Object.keys(doc.paths["/api/sdk/tickets/create"].post.responses)).toEqual(expect.arrayContaining(["201", "400", "401", "403", "429"]));
});

test("every schema in the document compiles as JSON Schema 2020-12 and checks real payloads", () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const schemas: unknown[] = [];
  const walk = (v: any) => {
    if (v && typeof v === "object") {
      if (v.schema) schemas.push(v.schema);
      for (const x of Object.values(v)) walk(x);
    }
  };
  walk(doc.paths);
  expect(schemas.length).toBeGreaterThan(10);
  for (const schema of schemas) ajv.compile(schema as object);
  const events = ajv.compile(doc.paths["/api/sdk/events"].post.requestBody.content["application/json"].schema);
  expect(events({ events: [{ name: "page_viewed", properties: { path: "/" } }] })).toBe(true);
  expect(events({ events: Array.from({ length: 101 }, () => ({ name: "x" })) })).toBe(false);
});

test("every JSON API route the app registers is in the document (dashboard and SDK alike)", async () => {
  const { createApp } = await import("../../src/app.ts");
  const { documented } = await import("../../src/openapi.ts");
  const routes = createApp(app.deps).routes.filter((r) => documented(r.path) && !["OPTIONS", "HEAD", "ALL"].includes(r.method.toUpperCase()));
  expect(routes.length).toBeGreaterThan(40);
  const missing = routes
    .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`)
    .filter((op) => !doc.paths[op.split(" ")[1]!]?.[op.split(" ")[0]!.toLowerCase()]);
  expect(missing).toEqual([]);
  for (const op of ["/api/campaigns", "/api/tickets", "/api/agents"]) expect(doc.paths[op]).toBeDefined();
  expect(doc.paths["/api/mcp"]).toBeUndefined(); // JSON-RPC: described by its own descriptor (GET /api/mcp)
});

test("a number is described once, as a number: no anyOf pairing it with a numeric string, anywhere in the document", () => {
  const pairs: string[] = [];
  const walk = (v: any, path: string) => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${path}/${i}`));
    if (!v || typeof v !== "object") return;
    for (const key of ["anyOf", "oneOf"]) {
      const members = Array.isArray(v[key]) ? (v[key] as any[]) : [];
      // A number spelled also as text: a string of format integer/numeric beside it, or a union of
      // just a string and a number. (A scalar that may be a string, a number or a boolean is a choice.)
      const isNumber = (m: any) => m?.type === "integer" || m?.type === "number";
      const numericText = members.some((m) => m?.type === "string" && (m.format === "integer" || m.format === "numeric"));
      const stringOrNumber = members.length === 2 && members.some((m) => m?.type === "string") && members.some(isNumber);
      if (members.some(isNumber) && (numericText || stringOrNumber)) pairs.push(`${path}/${key}`);
    }
    for (const [key, x] of Object.entries(v)) walk(x, `${path}/${key}`);
  };
  walk(doc, "");
  expect(pairs).toEqual([]);
  // What a generated client reads: the type, the bounds and the description, each once.
  const step = doc.paths["/api/campaigns"].post.requestBody.content["application/json"].schema.properties.steps.items.properties.delay_seconds;
  expect(step).toEqual({
    type: "integer",
    minimum: 0,
    maximum: 31_536_000,
    description: "Seconds to wait, after the anchor named by delay_from (0 to 365 days).",
  });
  const limit = doc.paths["/api/activity"].get.parameters.find((p: any) => p.name === "limit").schema;
  expect(limit).toEqual({ type: "integer", minimum: 1, maximum: 100 });
});

test("the voice endpoints: a recording's media types as the transcribe body, the speech body's schema, their refusals", () => {
  const transcribe = doc.paths["/api/sdk/voice/transcribe"].post;
  expect(Object.keys(transcribe.requestBody.content)).toEqual(expect.arrayContaining(["audio/webm", "audio/ogg", "audio/wav"]));
  expect(Object.keys(transcribe.responses)).toEqual(expect.arrayContaining(["200", "400", "413", "415", "429", "503"]));
  expect(transcribe.tags).toEqual(["Widget SDK"]);
  const speech = doc.paths["/api/sdk/voice/speech"].post;
  expect(speech.requestBody.content["application/json"].schema.properties.text.maxLength).toBe(1000);
  expect(Object.keys(speech.responses)).toEqual(expect.arrayContaining(["400", "429", "503"]));
});
