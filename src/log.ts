// Structured logs: one JSON object per line on stderr (stdout belongs to CLI output). Field names
// that could carry secrets are redacted as a second line of defence; callers should never pass them.
// Errors never bring customer data into the log: a failed statement's message
// carries its parameter values ("Failed query: … params: …", and PostgreSQL's own text quotes the
// offending value), so a database error is logged as its class and SQLSTATE only, and no stack
// trace is ever written. Pass the Error itself (`{ error }`) and the logger describes it.
import type { LogLevel } from "./config.ts";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_FIELD = /pass(word)?|secret|token|authorization|cookie|credential|api[-_]?key/i;

export type LogFields = Record<string, unknown>;

const SQLSTATE = /^[0-9A-Z]{5}$/;
/** A driver's or the socket's own code (CONNECTION_CLOSED, ECONNRESET…): a name, never data. */
const CLIENT_CODE = /^[A-Z][A-Z_]{3,40}$/;
const QUERY_TEXT = /Failed query:|\nparams:/;

/**
 * What the log may say about a thrown value: its class, and for a database error its SQLSTATE or
 * the driver's code (never the message, which holds parameter values); for other errors the first
 * 500 characters of the message. Never a stack.
 */
export function describeError(error: unknown): LogFields {
  if (!(error instanceof Error)) return { error_class: typeof error, error: String(error).slice(0, 500) };
  let sqlstate: string | undefined;
  let clientCode: string | undefined;
  let database = false;
  let at: unknown = error;
  for (let i = 0; i < 5 && at instanceof Error; i++, at = (at as { cause?: unknown }).cause) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === "string" && SQLSTATE.test(code)) sqlstate ??= code;
    else if (typeof code === "string" && CLIENT_CODE.test(code)) clientCode ??= code;
    if (at.name === "DrizzleQueryError" || at.name === "PostgresError" || sqlstate !== undefined || QUERY_TEXT.test(at.message)) database = true;
  }
  const errorClass = error.name === "Error" ? error.constructor.name : error.name;
  if (database)
    return {
      error_class: errorClass,
      ...(sqlstate ? { sqlstate } : {}),
      ...(clientCode ? { code: clientCode } : {}),
      error: "database error (statement and parameters not logged)",
    };
  return { error_class: errorClass, error: error.message.slice(0, 500) };
}

/** A field's value as logged: Errors described, query texts with parameters dropped. */
function safeValue(value: unknown): unknown {
  if (value instanceof Error) return describeError(value);
  if (typeof value === "string" && QUERY_TEXT.test(value)) return "database error (statement and parameters not logged)";
  return value;
}

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const emit = (at: Exclude<LogLevel, "silent">, msg: string, fields?: LogFields) => {
    if (ORDER[at] < ORDER[level]) return;
    const record: LogFields = { time: new Date().toISOString(), level: at, msg };
    for (const [k, v] of Object.entries(fields ?? {})) {
      if (k === "stack") continue; // never written: stacks of failed statements name values and paths
      record[k] = SECRET_FIELD.test(k) ? "[redacted]" : safeValue(v);
    }
    write(`${JSON.stringify(record)}\n`);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}
