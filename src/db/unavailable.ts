// Which errors mean "the database cannot be reached right now" rather than "this statement is
// wrong": the request that met one is answered 503 `database_unavailable` with Retry-After
// (README "Faults and shutdown"), never 500, and a background loop backs off instead of logging
// a bug. Pure: it reads the error's fields, so it serves postgres.js and anything wrapping it.

/** postgres.js's own codes for a connection that could not be made or went away. */
const CLIENT_CODES = new Set(["CONNECT_TIMEOUT", "CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECTION_ENDED"]);

/** Socket errors met while connecting to or talking with the server. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "ECONNABORTED"]);

/**
 * SQLSTATEs of a server that is going away or not yet accepting (PostgreSQL Appendix A): class 08
 * (connection exception), 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now,
 * 53300 too_many_connections.
 */
function unavailableState(code: string): boolean {
  return /^08[0-9A-Z]{3}$/.test(code) || code === "57P01" || code === "57P02" || code === "57P03" || code === "53300";
}

function isSqlState(error: { name?: unknown; severity?: unknown }): boolean {
  return error.name === "PostgresError" || typeof error.severity === "string";
}

/** True when `error`, or any error in its `cause` chain, says the database is unreachable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  let at: unknown = error;
  for (let depth = 0; depth < 8 && at !== null && typeof at === "object"; depth++) {
    // The driver writing to a socket that closed under it: a large statement is written at once,
    // so the TypeError below rejects that statement itself (and a request answered 500 in the soak).
    if (isDriverWriteAfterClose(at)) return true;
    const e = at as { code?: unknown; name?: unknown; severity?: unknown; cause?: unknown; syscall?: unknown };
    if (typeof e.code === "string") {
      if (CLIENT_CODES.has(e.code)) return true;
      if (isSqlState(e) && unavailableState(e.code)) return true;
      // A socket error counts only as the database client's (a system call on its socket), so a
      // connector's refused fetch inside a tool stays that tool's failure.
      if (SOCKET_CODES.has(e.code) && typeof e.syscall === "string") return true;
    }
    at = e.cause;
  }
  return false;
}

/**
 * postgres.js 3.4.9 writes a batched chunk from a setImmediate callback (`nextWrite`) and throws a
 * TypeError there when the socket closed in between — when the server goes away under load. (A
 * chunk of 1 KiB or more is written at once instead, and then the same TypeError rejects the
 * statement: isDatabaseUnavailable counts it.) From the callback no caller can catch it, so it
 * would end the process (seen in the soak, docs/reliability.md: two of three instances exited at
 * a PostgreSQL restart). The connection is already closed and its
 * queries fail as "database unavailable"; the process itself is fine. This recognises exactly that
 * error, so the process-level handler (src/main.ts) can log it and keep serving.
 */
export function isDriverWriteAfterClose(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const stack = error.stack ?? "";
  return /socket\.write|'write'/.test(error.message) && /\bnextWrite\b/.test(stack) && /postgres/.test(stack);
}
