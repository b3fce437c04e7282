// Which errors mean "the database is unreachable" (src/db/unavailable.ts): postgres.js's connection
// codes, socket errors from its own socket, and the SQLSTATEs of a server going away — and not a
// statement's own failure, nor a refused fetch inside a tool (no system call on it).
import { describe, expect, test } from "bun:test";
import { isDatabaseUnavailable } from "../../src/db/unavailable.ts";
import { AppError, knownError } from "../../src/errors.ts";

const pg = (code: string) => Object.assign(new Error("server said no"), { name: "PostgresError", code, severity: "FATAL" });

test("connection-class errors are unavailable", () => {
  for (const code of ["CONNECT_TIMEOUT", "CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECTION_ENDED"])
    expect(isDatabaseUnavailable(Object.assign(new Error(code), { code }))).toBe(true);
  expect(isDatabaseUnavailable(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED", syscall: "connect" }))).toBe(true);
  for (const code of ["57P01", "57P02", "57P03", "08006", "08001", "53300"]) expect(isDatabaseUnavailable(pg(code))).toBe(true);
  // Wrapped (as a query builder may wrap it): the cause chain is read.
  expect(isDatabaseUnavailable(new Error("Failed query", { cause: pg("57P01") }))).toBe(true);
});

test("a statement's own failure, a connector's refused fetch and non-errors are not", () => {
  for (const code of ["23505", "22P02", "40001", "57014", "42P01"]) expect(isDatabaseUnavailable(pg(code))).toBe(false);
  expect(isDatabaseUnavailable(Object.assign(new TypeError("Unable to connect"), { code: "ECONNREFUSED" }))).toBe(false);
  expect(isDatabaseUnavailable(Object.assign(new Error("x"), { code: "08006" }))).toBe(false); // a code without a server's severity
  for (const value of [undefined, null, "CONNECTION_CLOSED", 42, {}]) expect(isDatabaseUnavailable(value)).toBe(false);
});

test("knownError: one mapping for every edge — 503 database_unavailable with Retry-After, -32603 retryable", async () => {
  const mapped = knownError(Object.assign(new Error("x"), { code: "CONNECT_TIMEOUT" }))!;
  expect([mapped.status, mapped.code, mapped.headers?.["retry-after"]]).toEqual([503, "database_unavailable", "5"]);
  expect(mapped.toRpc()).toEqual({ code: -32603, message: mapped.message, data: { retryable: true, retry_after: 5 } });
  const res = mapped.toResponse("req-1");
  expect(res.status).toBe(503);
  expect(((await res.json()) as any).error).toEqual({ code: "database_unavailable", message: mapped.message, request_id: "req-1" });
  const own = AppError.notFound();
  expect(knownError(own)).toBe(own);
  expect(knownError(new Error("a bug"))).toBeUndefined();
});

describe("postgres.js writing after its socket closed", () => {
  test("exactly that error is recognised; any other TypeError or a write error elsewhere is not", async () => {
    const { isDriverWriteAfterClose } = await import("../../src/db/unavailable.ts");
    const driver = new TypeError("null is not an object (evaluating 'socket.write')");
    driver.stack = `${driver.message}\n    at nextWrite (/app/node_modules/postgres/src/connection.js:255:15)\n    at processImmediate (node:internal/timers:476:21)`;
    expect(isDriverWriteAfterClose(driver)).toBe(true);
    const ours = new TypeError("null is not an object (evaluating 'socket.write')");
    ours.stack = `${ours.message}\n    at send (/app/src/mail/smtp.ts:10:3)`;
    expect(isDriverWriteAfterClose(ours)).toBe(false);
    const other = new TypeError("x is not a function");
    other.stack = `${other.message}\n    at nextWrite (/app/node_modules/postgres/src/connection.js:255:15)`;
    expect(isDriverWriteAfterClose(other)).toBe(false);
    expect(isDriverWriteAfterClose(new Error("socket.write"))).toBe(false);
  });

  test("a statement it rejected with that error (one written at once, 1 KiB or more) is 'database unavailable': 503, not 500", async () => {
    const driver = new TypeError("null is not an object (evaluating 'socket.write')");
    driver.stack = `${driver.message}\n    at nextWrite (/app/node_modules/postgres/src/connection.js:255:15)\n    at write (/app/node_modules/postgres/src/connection.js:249:14)\n    at execute (/app/node_modules/postgres/src/connection.js:173:14)`;
    const wrapped = Object.assign(new Error("Failed query: insert …", { cause: driver }), { name: "DrizzleQueryError" });
    expect(isDatabaseUnavailable(driver)).toBe(true);
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
    expect(knownError(wrapped)?.status).toBe(503);
    const ours = new TypeError("null is not an object (evaluating 'socket.write')");
    ours.stack = `${ours.message}\n    at send (/app/src/mail/smtp.ts:10:3)`;
    expect(isDatabaseUnavailable(new Error("x", { cause: ours }))).toBe(false);
  });
});
