// GET /api/openapi.json (issue #11): generated from the same TypeBox schemas that validate the
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
  expect(query).toEqual([expect.objectContaining({ name: "org_id", in: "query", required: true })]);
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
  const missing = routes.map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`).filter((op) => !doc.paths[op.split(" ")[1]!]?.[op.split(" ")[0]!.toLowerCase()]);
  expect(missing).toEqual([]);
  for (const op of ["/api/campaigns", "/api/tickets", "/api/agents"]) expect(doc.paths[op]).toBeDefined();
  expect(doc.paths["/api/mcp"]).toBeUndefined(); // JSON-RPC: described by its own descriptor (GET /api/mcp)
});
