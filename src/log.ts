// Structured logs: one JSON object per line on stderr (stdout belongs to CLI output). Field names
// that could carry secrets are redacted as a second line of defence; callers should never pass them.
import type { LogLevel } from "./config.ts";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_FIELD = /pass(word)?|secret|token|authorization|cookie|credential|api[-_]?key/i;

export type LogFields = Record<string, unknown>;

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
    for (const [k, v] of Object.entries(fields ?? {})) record[k] = SECRET_FIELD.test(k) ? "[redacted]" : v;
    write(`${JSON.stringify(record)}\n`);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}
