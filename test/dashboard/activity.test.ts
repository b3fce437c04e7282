// The activity log's dashboard page (/dashboard/activity) as plain requests: admins only (org:manage,
// as GET /api/activity), linked from the settings sections; the API's filters (action, object type,
// object id) in a GET form; pages by the API's cursor, the filters kept; who acted in words; a bad
// cursor said on the page; another org's rows never shown.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { recordActivity } from "../../src/activity/log.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith } from "./helpers.ts";

let app: TestApp;
let admin: Member;
let other: Member;

beforeAll(async () => {
  app = await createTestApp();
  admin = await adminOf(app, "Acme");
  other = await adminOf(app, "Other");
  const start = app.deps.now().getTime() - 3_600_000;
  for (let i = 0; i < 45; i++) {
    app.clock.now = new Date(start + i * 60_000);
    await recordActivity(app.deps, {
      orgId: admin.orgId,
      actor: { kind: "system", name: "cli" },
      action: i % 2 === 0 ? "connector.created" : "feature_flag.changed",
      objectType: i % 2 === 0 ? "connector" : "feature_flag",
      objectId: i % 2 === 0 ? `conn-${i}` : "mcp_external_servers",
      summary: i % 2 === 0 ? { name: `Connector ${i}`, url_host: "tools.example" } : { before: false, after: true },
    });
  }
  await recordActivity(app.deps, {
    orgId: admin.orgId,
    actor: { kind: "customer", endUserId: null, sessionId: "s-1" },
    action: "ticket.created",
    objectType: "ticket",
    objectId: "t-1",
    summary: { subject: "<script>alert(1)</script>" },
  });
  await recordActivity(app.deps, {
    orgId: other.orgId,
    actor: { kind: "system", name: "cli" },
    action: "connector.created",
    objectType: "connector",
    objectId: "other-secret-connector",
    summary: {},
  });
}, 60_000);
afterAll(() => app.close());

const rows = (text: string) => text.match(/<tr data-activity=/g)?.length ?? 0;

describe("the activity page", () => {
  test("admins see the newest first, 20 a page, and page on with the filters kept", async () => {
    const res = await get(app, admin, "/dashboard/activity");
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("<h1>Activity log</h1>");
    expect(rows(text)).toBe(20);
    const table = text.slice(text.indexOf("<table"));
    expect(table.indexOf("ticket.created")).toBeLessThan(table.indexOf("connector.created"));
    expect(text).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
    expect(text).not.toContain("<script>alert(1)");
    expect(text).not.toContain("other-secret-connector");
    const next = /<a href="(\/dashboard\/activity\?cursor=[^"]+)" rel="next">/.exec(text)?.[1];
    expect(next).toBeDefined();
    const second = await (await get(app, admin, next!.replaceAll("&#38;", "&"))).text();
    expect(rows(second)).toBe(20);
    expect(second).toContain('href="/dashboard/activity"');
  });

  test("the API's filters: action, object type, object id; the next page keeps them", async () => {
    const flags = await (await get(app, admin, "/dashboard/activity?action=feature_flag.changed")).text();
    expect(rows(flags)).toBe(20);
    expect(flags).not.toContain("<td><code>connector.created</code>");
    expect(flags).toContain('value="feature_flag.changed"');
    const connectors = await (await get(app, admin, "/dashboard/activity?object_type=connector")).text();
    expect(rows(connectors)).toBe(20);
    const next = /<a href="(\/dashboard\/activity\?object_type=connector&#38;cursor=[^"]+)" rel="next">/.exec(connectors)?.[1];
    expect(next).toBeDefined();
    const rest = await (await get(app, admin, next!.replaceAll("&#38;", "&"))).text();
    expect(rows(rest)).toBe(3);
    expect(rest).not.toContain("<td><code>feature_flag.changed</code>");
    const one = await (await get(app, admin, "/dashboard/activity?object_id=conn-4")).text();
    expect(rows(one)).toBe(1);
    expect(one).toContain("Connector 4");
    const none = await (await get(app, admin, "/dashboard/activity?action=nothing.happened")).text();
    expect(rows(none)).toBe(0);
    expect(none).toContain("Nothing recorded matches these filters.");
  });

  test("who acted, in words", async () => {
    const text = await (await get(app, admin, "/dashboard/activity")).text();
    expect(text).toContain("A customer");
    expect(text).toContain("System (cli)");
  });

  test("a cursor that is not ours is said on the page, with the form; bounds as the API's", async () => {
    const res = await get(app, admin, "/dashboard/activity?cursor=nonsense");
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toContain('role="alert"');
    expect(text).toContain('action="/dashboard/activity"');
    expect((await get(app, admin, `/dashboard/activity?action=${"a".repeat(100)}`)).status).toBe(200);
    expect((await get(app, admin, `/dashboard/activity?action=${"a".repeat(101)}`)).status).toBe(400);
  });

  test("org:manage only, as the API: others get 403 and no link; admins find it under Settings", async () => {
    const inbox = await memberWith(app, admin.orgId, ["inbox:manage", "members:manage"]);
    expect((await get(app, inbox, "/dashboard/activity")).status).toBe(403);
    expect(await (await get(app, inbox, "/dashboard/settings/members")).text()).not.toContain('href="/dashboard/activity"');
    const settings = await (await get(app, admin, "/dashboard/settings")).text();
    expect(settings).toMatch(/<a href="\/dashboard\/activity">Activity log<\/a>/);
    expect((await app.request("/dashboard/activity")).status).toBe(303);
  });
});
