// The "Test your agent" page as plain form posts (no script), its export, roles; the knowledge
// gaps page and its "write an article" link.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createDoc, updateDoc } from "../../src/knowledge/docs.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { formulaCells, HOSTILE_CELLS, parseCsv } from "../support/csv.ts";
import { adminOf, get, type Member, memberWith, post, withFlash } from "./helpers.ts";

let app: TestApp;
let admin: Member;
let docId: string;
const SET = [
  '{"question": "How do I reset my password?", "expected_doc": "Resetting your password"}',
  '{"question": "Can I pay with bitcoin?", "expected_phrase": "bitcoin"}',
].join("\n");

beforeAll(async () => {
  app = await createTestApp({ LLM_PROVIDER: "builtin" });
  admin = await adminOf(app);
  docId = (
    await createDoc(app.deps, admin.orgId, {
      title: "Resetting your password",
      body: "## Reset\nChoose Forgot password on the sign-in page and follow the emailed link.",
    })
  ).id;
}, 60_000);
afterAll(() => app.close());

describe("Test your agent", () => {
  test("a pasted set is run by a form post; the run page shows totals; run again after an edit shows the change", async () => {
    const page = await get(app, admin, "/dashboard/eval");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Run the questions");
    const res = await post(app, admin, "/dashboard/eval", { agent_id: admin.agentId!, content: SET });
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    expect(location).toMatch(/^\/dashboard\/eval\/runs\/[0-9a-f-]{36}$/);
    const first = await (await get(app, withFlash(admin, res), location)).text();
    expect(first).toContain("Run finished: 2 questions.");
    expect(first).toContain("The first run of this agent");
    expect(first).toContain("100%"); // recall@1 of the one page question

    await updateDoc(app.deps, admin.orgId, docId, { title: "Gift cards", body: "Gift cards never expire." });
    const again = await post(app, admin, `${location}/again`, { again: "1" });
    expect(again.status).toBe(303);
    const second = await (await get(app, admin, again.headers.get("location")!)).text();
    expect(second).toContain("Since the previous run");
    expect(second).toMatch(/<strong>0<\/strong> newly right · <strong>1<\/strong> newly wrong/);
    expect(second).toContain("−100 points");
    // The list page: both runs, and the last run's questions ready to run again.
    const list = await (await get(app, admin, "/dashboard/eval")).text();
    expect(list.match(/href="\/dashboard\/eval\/runs\//g)).toHaveLength(2);
    expect(list).toContain("How do I reset my password?");
  });

  test("export as JSON and CSV", async () => {
    const res = await post(app, admin, "/dashboard/eval", { agent_id: admin.agentId!, content: SET });
    const id = res.headers.get("location")!.split("/").pop()!;
    const json = await get(app, admin, `/dashboard/eval/runs/${id}/export?format=json`);
    expect(json.headers.get("content-type")).toContain("application/json");
    expect(json.headers.get("content-disposition")).toBe(`attachment; filename="eval-run-${id}.json"`);
    expect(((await json.json()) as { id: string; results: unknown[] }).results).toHaveLength(2);
    const csv = await get(app, admin, `/dashboard/eval/runs/${id}/export?format=csv`);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect((await csv.text()).split("\r\n")[1]).toStartWith("How do I reset my password?,");
    expect((await get(app, admin, `/dashboard/eval/runs/${id}/export?format=pdf`)).status).toBe(400);
  });

  test("the CSV export defuses questions that would start a formula", async () => {
    const content = HOSTILE_CELLS.map((question) => JSON.stringify({ question, expected_phrase: "@x" })).join("\n");
    const res = await post(app, admin, "/dashboard/eval", { agent_id: admin.agentId!, content });
    expect(res.status).toBe(303);
    const id = res.headers.get("location")!.split("/").pop()!;
    const rows = parseCsv(await (await get(app, admin, `/dashboard/eval/runs/${id}/export?format=csv`)).text());
    expect(rows.slice(1).map((r) => [r[0], r[2]])).toEqual(HOSTILE_CELLS.map((q) => [`'${q.trim()}`, "'@x"]));
    expect(formulaCells(rows)).toEqual([]);
  });

  test("a bad set is shown again with the line that is wrong; an unknown agent by its field", async () => {
    const bad = await post(app, admin, "/dashboard/eval", { agent_id: admin.agentId!, content: '{"question": "ok"}\nnot json' });
    expect(bad.status).toBe(400);
    const text = await bad.text();
    expect(text).toContain("Line 2: not a JSON object");
    expect(text).toContain("not json"); // the entered text kept
    expect((await post(app, admin, "/dashboard/eval", { agent_id: admin.agentId!, content: "" })).status).toBe(400);
    const tooMany = Array.from({ length: 501 }, (_, i) => `{"question": "q${i}"}`).join("\n");
    expect(await (await post(app, admin, "/dashboard/eval", { agent_id: admin.agentId!, content: tooMany })).text()).toContain("at most 500 questions");
    const unknown = await post(app, admin, "/dashboard/eval", { agent_id: "00000000-0000-4000-8000-000000000000", content: SET });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("No such agent in this organisation.");
  });

  test("agents:view sees runs and no form; cannot post; another org's run is 404", async () => {
    const viewer = await memberWith(app, admin.orgId, ["agents:view"]);
    const page = await (await get(app, viewer, "/dashboard/eval")).text();
    expect(page).not.toContain("Run the questions");
    expect((await post(app, viewer, "/dashboard/eval", { content: SET })).status).toBe(403);
    const other = await adminOf(app);
    const res = await post(app, admin, "/dashboard/eval", { agent_id: admin.agentId!, content: SET });
    const path = res.headers.get("location")!;
    expect((await get(app, other, path)).status).toBe(404);
    expect((await get(app, other, `${path}/export?format=csv`)).status).toBe(404);
    expect((await post(app, other, `${path}/again`, { again: "1" })).status).toBe(404);
  });
});

describe("knowledge gaps page", () => {
  test("groups with counts, sample questions and a write-an-article link that opens the pre-filled form; needs inbox:view too", async () => {
    const chat = (message: string) =>
      app.request("/api/sdk/chat", { method: "POST", headers: { authorization: `Bearer ${admin.widgetKey}` }, json: { message } });
    await chat("Do you have an office in Tokyo?");
    await chat("Where is your Tokyo office?");
    const page = await get(app, admin, "/dashboard/knowledge/gaps");
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain("Where is your Tokyo office?");
    expect(text).toContain("Do you have an office in Tokyo?");
    expect(text).toMatch(/<td>2<\/td>/);
    const link = /href="(\/dashboard\/knowledge\/new\?title=[^"]+)"/.exec(text)![1]!.replaceAll("&amp;", "&");
    const form = await (await get(app, admin, link)).text();
    expect(form).toMatch(/value="(Where is your Tokyo office\?|Do you have an office in Tokyo\?)"/);
    const writer = await memberWith(app, admin.orgId, ["knowledge:manage"]);
    expect((await get(app, writer, "/dashboard/knowledge/gaps")).status).toBe(403);
    expect((await get(app, await memberWith(app, admin.orgId, ["inbox:view", "knowledge:view"]), "/dashboard/knowledge/gaps")).status).toBe(403);
    const other = await adminOf(app);
    expect(await (await get(app, other, "/dashboard/knowledge/gaps")).text()).toContain("No unanswered questions in the last 30 days.");
  });
});
