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

test("GET /api/sdk/conversations/{session_id} and …/events: the request log has [session_id], and the session id appears in no log line", async () => {
  // The chat session id of an anonymous visitor is the only secret of their conversation.
  const sessionId = `cs_${crypto.randomUUID().replaceAll("-", "")}`;
  const before = app.logs.length;
  await app.request(`/api/sdk/conversations/${sessionId}`, { headers: { authorization: "Bearer wk_nope" } });
  await app.request(`/api/sdk/conversations/${sessionId}/events?last_event_id=1`, { headers: { authorization: "Bearer wk_nope" } });
  await app.request(`/api/sdk/conversations/${encodeURIComponent(sessionId)}%2Fevents`);
  const paths = app.logs
    .slice(before)
    .filter((l) => l.msg === "request")
    .map((l) => l.path);
  expect(paths).toEqual(["/api/sdk/conversations/[session_id]", "/api/sdk/conversations/[session_id]/events", "/api/sdk/conversations/[session_id]"]);
  expect(app.rawLogs.some((l) => l.includes(sessionId))).toBe(false);
  expect(app.rawLogs.some((l) => l.includes(sessionId.slice(3)))).toBe(false);
});
