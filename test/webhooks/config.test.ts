// WEBHOOK_RETRY_SCHEDULE parsing (README configuration table): accepted forms, the default, and
// each bound at its boundary.
import { expect, test } from "bun:test";
import { ConfigError } from "../../src/config.ts";
import { testConfig } from "../support/app.ts";

const schedule = (value?: string) => testConfig(value === undefined ? {} : { WEBHOOK_RETRY_SCHEDULE: value }).webhookRetrySchedule;

test("default: close to the Standard Webhooks recommendation", () => {
  expect(schedule()).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000]);
});

test("durations in s, m, h, d; spaces around commas allowed", () => {
  expect(schedule("5s, 5m,30m ,2h,1d")).toEqual([5, 300, 1800, 7200, 86_400]);
});

test("bounds at their boundaries: 1s and 7d pass, 0s and 7d+1s fail; 20 entries pass, 21 fail", () => {
  expect(schedule("1s,7d")).toEqual([1, 604_800]);
  expect(schedule("604800s")).toEqual([604_800]);
  expect(() => schedule("604801s")).toThrow(ConfigError);
  expect(() => schedule("0s")).toThrow(ConfigError);
  expect(schedule(Array(20).fill("1s").join(","))).toHaveLength(20);
  expect(() => schedule(Array(21).fill("1s").join(","))).toThrow(ConfigError);
});

test("refusals name the variable", () => {
  for (const bad of ["5", "5x", "-5s", "5s,,5m", "1.5h", "5 s"]) expect(() => schedule(bad)).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
});
