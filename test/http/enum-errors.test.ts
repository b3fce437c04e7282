// A value outside an enum (a union of literals) is answered 400 with a message naming the allowed
// values. The fields are found by walking GET /api/openapi.json, so an enum added to any request
// schema — a body field at any depth or a query parameter — is covered without editing this test.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

type Json = Record<string, any>;
interface EnumField {
  method: string;
  path: string;
  where: "body" | "query";
  /** JSON Pointer of the field in the body (array items as /0), or the query parameter's name. */
  pointer: string;
  allowed: unknown[];
}

let app: TestApp;
let doc: Json;
let session: string;
let widgetKey: string;

beforeAll(async () => {
  app = await createTestApp();
  const org = await seedOrg(app);
  session = await signIn(app, org.admin_email, org.password);
  widgetKey = org.widget_key;
  doc = await (await app.request("/api/openapi.json")).json();
}, 30_000);
afterAll(() => app.close());

/** The allowed values when `schema` is an enum: `enum`, or a union whose members are all constants (or null). */
export function enumValues(schema: Json): unknown[] | null {
  if (Array.isArray(schema.enum)) return schema.enum;
  const members = schema.anyOf as Json[] | undefined;
  if (Array.isArray(members) && members.length > 0 && members.every((m) => "const" in m || m.type === "null") && members.some((m) => "const" in m))
    return members.map((m) => ("const" in m ? m.const : null));
  return null;
}

function enumFields(schema: Json, pointer: string, out: { pointer: string; allowed: unknown[] }[]) {
  const allowed = enumValues(schema);
  if (allowed) return void out.push({ pointer, allowed });
  if (typeof schema.const === "string" && pointer) return void out.push({ pointer, allowed: [schema.const] });
  for (const [key, value] of Object.entries((schema.properties ?? {}) as Json)) enumFields(value, `${pointer}/${key}`, out);
  if (schema.items) enumFields(schema.items, `${pointer}/0`, out);
  for (const member of (schema.anyOf ?? schema.oneOf ?? []) as Json[]) enumFields(member, pointer, out);
}

function everyEnumField(document: Json): EnumField[] {
  const fields: EnumField[] = [];
  for (const [path, operations] of Object.entries(document.paths as Json))
    for (const [method, op] of Object.entries(operations as Json)) {
      const body = op.requestBody?.content?.["application/json"]?.schema;
      const found: { pointer: string; allowed: unknown[] }[] = [];
      if (body) enumFields(body, "", found);
      for (const f of found) fields.push({ method, path, where: "body", ...f });
      for (const p of (op.parameters ?? []) as Json[]) {
        if (p.in !== "query") continue;
        const allowed = enumValues(p.schema);
        if (allowed) fields.push({ method, path, where: "query", pointer: p.name, allowed });
      }
    }
  // Fields found twice (a union of shapes naming the same field) are sent once.
  return [...new Map(fields.map((f) => [`${f.method} ${f.path} ${f.where} ${f.pointer}`, f])).values()];
}

/** A body holding `value` at `pointer` (`/steps/0/delay_from` → {steps:[{delay_from:value}]}). */
function bodyWith(pointer: string, value: unknown): unknown {
  const keys = pointer.split("/").slice(1);
  const build = (i: number): unknown => {
    if (i === keys.length) return value;
    return keys[i] === "0" ? [build(i + 1)] : { [keys[i]!]: build(i + 1) };
  };
  return build(0);
}

const BAD = "no-such-value-zz";

test("the document has enum fields to check (the walk finds them)", () => {
  const fields = everyEnumField(doc);
  expect(fields.length).toBeGreaterThan(20);
  expect(fields).toContainEqual(
    expect.objectContaining({ method: "patch", path: "/api/tickets/{id}", pointer: "/status", allowed: ["open", "pending", "resolved", "closed"] }),
  );
  expect(fields).toContainEqual(expect.objectContaining({ method: "get", path: "/api/campaigns", where: "query", pointer: "status" }));
});

test("every enum field of every request schema answers a bad value with a 400 naming the allowed values", async () => {
  const failures: string[] = [];
  for (const field of everyEnumField(doc)) {
    const path = field.path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000");
    const auth = field.path.startsWith("/api/sdk/") ? widgetKey : session;
    const url = field.where === "query" ? `${path}?${new URLSearchParams({ [field.pointer]: BAD })}` : path;
    const res = await app.request(url, {
      method: field.method.toUpperCase(),
      headers: { authorization: `Bearer ${auth}`, origin: "http://localhost:3000" },
      ...(field.where === "body" ? { json: bodyWith(field.pointer, BAD) } : {}),
    });
    const label = `${field.method.toUpperCase()} ${field.path} ${field.where} ${field.pointer}`;
    if (res.status !== 400) {
      failures.push(`${label}: status ${res.status}`);
      continue;
    }
    const body = (await res.json()) as { error: { code: string; details?: { path: string; message: string }[] } };
    const wanted = field.where === "query" ? `/${field.pointer}` : field.pointer;
    const detail = body.error.details?.find((d) => d.path === wanted);
    if (!detail) {
      failures.push(`${label}: no detail for ${wanted} in ${JSON.stringify(body.error.details)}`);
      continue;
    }
    const missing = field.allowed.filter((v) => !detail.message.includes(JSON.stringify(v)));
    if (missing.length > 0 || detail.message.includes("'string'")) failures.push(`${label}: "${detail.message}"`);
  }
  expect(failures).toEqual([]);
}, 60_000);
