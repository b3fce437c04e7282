// DATABASE_CONNECT_TIMEOUT_SECONDS (1 to 300, default 5) and SHUTDOWN_GRACE_SECONDS (0 to 3600,
// default 10), README "Configuration": each bound accepted, one past it refused naming the variable.
import { expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config.ts";

test("defaults", () => {
  const config = loadConfig({});
  expect([config.databaseConnectTimeoutSeconds, config.shutdownGraceSeconds]).toEqual([5, 10]);
});

test.each([
  ["DATABASE_CONNECT_TIMEOUT_SECONDS", "databaseConnectTimeoutSeconds", 1, 300],
  ["SHUTDOWN_GRACE_SECONDS", "shutdownGraceSeconds", 0, 3600],
] as const)("%s: from its minimum to its maximum", (name, key, min, max) => {
  expect(loadConfig({ [name]: String(min) })[key]).toBe(min);
  expect(loadConfig({ [name]: String(max) })[key]).toBe(max);
  for (const bad of [String(max + 1), ...(min > 0 ? [String(min - 1)] : []), "-1", "2.5", "soon"]) {
    expect(() => loadConfig({ [name]: bad })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: bad })).toThrow(name);
  }
});
