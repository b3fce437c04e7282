// DATABASE_CONNECT_TIMEOUT_SECONDS (1 to 300, default 5) and SHUTDOWN_GRACE_SECONDS (0 to 3600,
// default 10), README "Configuration": each bound accepted, one past it refused naming the variable;
// and METRICS_TOKEN's length (32 to 256) and character set at their boundaries.
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

test("METRICS_TOKEN: 32 and 256 characters pass; 31, 257, a space or a character outside the set are refused, naming it", () => {
  for (const length of [32, 256]) expect(loadConfig({ METRICS_TOKEN: "a".repeat(length) }).metricsToken).toBe("a".repeat(length));
  expect(loadConfig({ METRICS_TOKEN: "A-z0.9_~+/=".padEnd(32, "x") }).metricsToken).toHaveLength(32);
  expect(loadConfig({ METRICS_TOKEN: "" }).metricsToken).toBeUndefined();
  for (const bad of ["a".repeat(31), "a".repeat(257), `${"a".repeat(31)} `, `${"a".repeat(31)}:`, `${"a".repeat(31)}\n`]) {
    expect(() => loadConfig({ METRICS_TOKEN: bad })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_TOKEN: bad })).toThrow("METRICS_TOKEN");
  }
});
