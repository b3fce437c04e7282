// Capability URLs never reach the log: an unsubscribe link's token (RFC 8058) is the whole of its
// authority, so the access log writes the route, not the token.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 30_000);
afterAll(() => app.close());

test("GET and POST /u/{token}: the request log has /u/[token], and the token appears in no log line", async () => {
  const token = `tok${crypto.randomUUID().replaceAll("-", "")}`;
  await app.request(`/u/${token}`);
  await app.request(`/u/${token}`, { method: "POST", form: { "List-Unsubscribe": "One-Click" } });
  const lines = app.logs.filter((l) => l.msg === "request" || l.message === "request" || l.path !== undefined);
  expect(lines.filter((l) => l.path === "/u/[token]").length).toBeGreaterThanOrEqual(2);
  expect(app.rawLogs.some((l) => l.includes(token))).toBe(false);
});
