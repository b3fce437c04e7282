// The server log never records SQL parameter values or stack traces of failed statements
//: the error class, the SQLSTATE and the request id instead.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { Elysia } from "elysia";
import { errorHandling } from "../../src/http/errors.ts";
import { createHandler } from "../../src/http/handler.ts";
import { createLogger, describeError } from "../../src/log.ts";
import { createTestApp, type TestApp } from "../support/app.ts";

const VALUE = "customer-secret-4242";
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

describe("a failed statement in a request", () => {
  test("is logged as class + SQLSTATE + request id, without the parameter value or a stack", async () => {
    const lines: string[] = [];
    const log = createLogger("debug", (l) => lines.push(l));
    const routes = new Elysia().use(errorHandling(log)).get("/boom", async () => {
      await app.deps.db.execute(sql`select ${VALUE}::int`);
      return "unreachable";
    });
    const handle = createHandler(routes.fetch, { log, trustProxy: false });
    const res = await handle(new Request("http://localhost/boom", { headers: { "x-request-id": "req-sql-1" } }));
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain(VALUE);
    const all = lines.join("");
    expect(all).not.toContain(VALUE);
    expect(all).not.toContain("select $1");
    expect(all).not.toMatch(/\bat .*\.(ts|js):\d+/);
    const line = lines.map((l) => JSON.parse(l) as Record<string, any>).find((l) => l.msg === "unhandled error")!;
    expect(line.request_id).toBe("req-sql-1");
    expect(line.error).toMatchObject({ error_class: "DrizzleQueryError", sqlstate: "22P02" });
    expect(line.stack).toBeUndefined();
  });
});

describe("the logger's second line of defence", () => {
  test("a query text passed as a string is dropped; a stack field is never written; other errors keep their message", () => {
    const lines: string[] = [];
    const log = createLogger("debug", (l) => lines.push(l));
    log.warn("tool failed", { error: `Failed query: select $1\nparams: ${VALUE}`, stack: `Error: x\n    at f (/srv/app/a.ts:1:1)` });
    log.warn("plain", { error: new TypeError("x is not a function") });
    const [first, second] = lines.map((l) => JSON.parse(l) as Record<string, any>);
    expect(JSON.stringify(first)).not.toContain(VALUE);
    expect(first!.stack).toBeUndefined();
    expect(second!.error).toEqual({ error_class: "TypeError", error: "x is not a function" });
  });

  test("describeError: a PostgreSQL error's own message (which quotes the value) is not kept", () => {
    const pg = Object.assign(new Error(`invalid input syntax for type integer: "${VALUE}"`), { name: "PostgresError", code: "22P02" });
    expect(describeError(pg)).toEqual({ error_class: "PostgresError", sqlstate: "22P02", error: "database error (statement and parameters not logged)" });
    const wrapped = new Error("outer", { cause: pg });
    expect(JSON.stringify(describeError(wrapped))).not.toContain(VALUE);
  });

  test("describeError: a connection that went away keeps the driver's code, so a log says why", () => {
    const closed = Object.assign(new Error(`write CONNECTION_CLOSED 127.0.0.1:5432`), { code: "CONNECTION_CLOSED" });
    const failed = Object.assign(new Error(`Failed query: select ${VALUE}\nparams: ${VALUE}`, { cause: closed }), { name: "DrizzleQueryError" });
    expect(describeError(failed)).toEqual({
      error_class: "DrizzleQueryError",
      code: "CONNECTION_CLOSED",
      error: "database error (statement and parameters not logged)",
    });
    // A code that is not a plain name is not copied.
    const odd = Object.assign(new Error("Failed query: x", { cause: Object.assign(new Error("y"), { code: `${VALUE} x` }) }), { name: "DrizzleQueryError" });
    expect(JSON.stringify(describeError(odd))).not.toContain(VALUE);
  });
});
