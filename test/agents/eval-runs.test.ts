// /api/eval/runs: a question set run against an agent, stored, compared with the agent's previous
// run, exported as CSV; bounds at their boundary, tenant scoping and roles.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EVAL_RUN, runQuestions } from "../../src/agents/eval-runs.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { memberWith } from "../dashboard/helpers.ts";
import { formulaCells, HOSTILE_CELLS, parseCsv } from "../support/csv.ts";
import { fakeOpenAi } from "../support/fake-llm.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let auth: { authorization: string };
const ids: Record<string, string> = {};

type Run = {
  id: string;
  status: string;
  error: string | null;
  questions: number;
  answered_questions: number;
  totals: Record<string, number | null>;
  results: {
    question: string;
    correct: boolean | null;
    change: string | null;
    sources: { doc_id: string; title: string }[];
    answered: boolean;
    confidence: number;
  }[];
  previous: { id: string; totals: Record<string, number | null> } | null;
};

const SET = [
  { question: "How do I reset my password?", expected_doc: "Resetting your password" },
  { question: "How long does shipping take?", expected_doc: "Shipping times" },
  { question: "Can I pay with bitcoin?", expected_phrase: "bitcoin" },
  { question: "hello" },
];
const start = (json: unknown, headers: Record<string, string> = auth) => app.request("/api/eval/runs", { method: "POST", headers, json });

beforeAll(async () => {
  app = await createTestApp({ LLM_PROVIDER: "builtin" });
  org = await seedOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  for (const [name, doc] of Object.entries({
    password: { title: "Resetting your password", body: "## Reset\nChoose Forgot password on the sign-in page and follow the emailed link." },
    shipping: { title: "Shipping times", body: "## How long shipping takes\nShipping takes three to five working days." },
  })) {
    const res = await app.request("/api/docs", { method: "POST", headers: auth, json: doc });
    ids[name] = ((await res.json()) as { id: string }).id;
  }
}, 60_000);
afterAll(() => app.close());

describe("evaluation runs", () => {
  let first: Run;
  test("a run answers each question, judges it, and stores totals; no previous run yet", async () => {
    const res = await start({ questions: SET });
    expect(res.status).toBe(201);
    first = (await res.json()) as Run;
    expect(first).toMatchObject({ status: "done", error: null, questions: 4, answered_questions: 4, previous: null });
    expect(first.results.map((r) => r.correct)).toEqual([true, true, false, null]);
    expect(first.results[0]!.sources[0]).toEqual({ doc_id: ids.password!, title: "Resetting your password" });
    expect(first.results.every((r) => r.change === null)).toBe(true);
    expect(first.totals).toMatchObject({ questions: 4, recall_at_1: 1, recall_at_3: 1, correct: 0.667 });
  });

  test("the next run is compared with it: totals side by side and each question's change", async () => {
    // The shipping page now says nothing about shipping; a page about bitcoin appears.
    await app.request(`/api/docs/${ids.shipping}`, { method: "PATCH", headers: auth, json: { title: "Gift cards", body: "Gift cards never expire." } });
    await app.request("/api/docs", { method: "POST", headers: auth, json: { title: "Paying with bitcoin", body: "We accept bitcoin payments at checkout." } });
    const res = await start({ agent_id: org.agent_id, questions: SET });
    const second = (await res.json()) as Run;
    expect(second.previous?.id).toBe(first.id);
    expect(second.previous?.totals.recall_at_1).toBe(1);
    expect(second.totals.recall_at_1).toBe(0.5);
    expect(second.results.map((r) => r.change)).toEqual(["same", "newly_wrong", "newly_right", null]);
    const again = (await (await app.request(`/api/eval/runs/${second.id}`, { headers: auth })).json()) as Run;
    expect(again.results.map((r) => r.change)).toEqual(["same", "newly_wrong", "newly_right", null]);
    const list = (await (await app.request("/api/eval/runs", { headers: auth })).json()) as { runs: Run[] };
    expect(list.runs.map((r) => r.id)).toEqual([second.id, first.id]);
    expect((await (await app.request("/api/eval/runs?limit=1", { headers: auth })).json()).runs).toHaveLength(1);
  });

  test("CSV export: one row per question, quoted per RFC 4180, formulas defused", async () => {
    const res = await start({
      questions: [{ question: '=HYPERLINK("x") and, "quotes"' }, { question: "How do I reset my password?", expected_doc: "Resetting your password" }],
    });
    const run = (await res.json()) as Run;
    const csv = await app.request(`/api/eval/runs/${run.id}?format=csv`, { headers: auth });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const text = await csv.text();
    const lines = text.trimEnd().split("\r\n");
    expect(lines[0]).toBe("question,expected_doc,expected_phrase,expected_passage,answered,confidence,correct,change,first_source,sources,reply");
    expect(lines[1]!.startsWith(`"'=HYPERLINK(""x"") and, ""quotes"""`)).toBe(true);
    expect(lines[2]!.startsWith("How do I reset my password?,Resetting your password,,,true,")).toBe(true);
    expect((await app.request(`/api/eval/runs/${run.id}?format=xml`, { headers: auth })).status).toBe(400);
  });

  test("CSV export of hostile questions, phrases and titles: no cell a spreadsheet reads as a formula", async () => {
    await app.request("/api/docs", {
      method: "POST",
      headers: auth,
      json: { title: "@Refunds (voucher, parcel)", body: "Refunds of a voucher or a parcel take five days." },
    });
    const res = await start({ questions: HOSTILE_CELLS.map((question) => ({ question, expected_phrase: "-1+1" })) });
    expect(res.status).toBe(201);
    const run = (await res.json()) as Run;
    const rows = parseCsv(await (await app.request(`/api/eval/runs/${run.id}?format=csv`, { headers: auth })).text());
    expect(rows.slice(1).map((r) => r[0])).toEqual(HOSTILE_CELLS.map((q) => `'${q.trim()}`));
    expect(rows.slice(1).map((r) => r[2])).toEqual(HOSTILE_CELLS.map(() => "'-1+1"));
    expect(rows.some((r) => r[8] === "'@Refunds (voucher, parcel)")).toBe(true);
    expect(formulaCells(rows)).toEqual([]);
  });

  test("bad input: 4xx at each bound", async () => {
    const q = (n: number) => Array.from({ length: n }, (_, i) => ({ question: `question ${i}` }));
    expect((await start({ questions: [] })).status).toBe(400);
    expect((await start({ questions: q(EVAL_RUN.questions + 1) })).status).toBe(400);
    const full = await start({ questions: q(EVAL_RUN.questions) });
    expect(full.status).toBe(201);
    expect(((await full.json()) as Run).answered_questions).toBe(EVAL_RUN.questions);
    expect((await start({ questions: [{ question: "x".repeat(EVAL_RUN.chars) }] })).status).toBe(201);
    // Past /api's 64 KiB body cap, within the set's own 8 MiB.
    const big = Array.from({ length: 100 }, (_, i) => ({ question: `question ${i} ${"word ".repeat(150)}` }));
    expect(JSON.stringify({ questions: big }).length).toBeGreaterThan(64 * 1024);
    expect((await start({ questions: big })).status).toBe(201);
    const huge = JSON.stringify({ questions: [{ question: "x" }], pad: "x".repeat(8 * 1024 * 1024) });
    expect((await app.request("/api/eval/runs", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: huge })).status).toBe(413);
    const long = await start({ questions: [{ question: "x".repeat(EVAL_RUN.chars + 1) }] });
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path).toContain("/questions/0/question");
    expect((await start({ questions: [{ question: "" }] })).status).toBe(400);
    expect((await start({ questions: [{ expected_doc: "x" }] })).status).toBe(400);
    expect((await start({ questions: "x" })).status).toBe(400);
    expect((await start({ agent_id: "x".repeat(65), questions: q(1) })).status).toBe(400);
    expect((await start({ agent_id: "not-a-uuid", questions: q(1) })).status).toBe(404);
    expect((await app.request("/api/eval/runs?limit=0", { headers: auth })).status).toBe(400);
    expect((await app.request(`/api/eval/runs?limit=${EVAL_RUN.kept + 1}`, { headers: auth })).status).toBe(400);
  });

  test("tenant scoping: another org's run and agent are 404; runs are listed per org", async () => {
    const other = await seedOrg(app);
    const otherAuth = { authorization: `Bearer ${await signIn(app, other.admin_email, other.password)}` };
    expect((await app.request(`/api/eval/runs/${first.id}`, { headers: otherAuth })).status).toBe(404);
    expect((await app.request(`/api/eval/runs/${first.id}?format=csv`, { headers: otherAuth })).status).toBe(404);
    expect((await app.request("/api/eval/runs/not-a-uuid", { headers: otherAuth })).status).toBe(404);
    expect((await start({ agent_id: org.agent_id, questions: SET }, otherAuth)).status).toBe(404);
    expect(((await (await app.request("/api/eval/runs", { headers: otherAuth })).json()) as { runs: unknown[] }).runs).toEqual([]);
  });

  test("roles: agents:view reads runs, only agents:manage starts one; no session is 401", async () => {
    const viewer = await memberWith(app, org.org_id, ["agents:view"]);
    const viewerAuth = { authorization: `Bearer ${viewer.cookie.split("=")[1]}` };
    expect((await app.request("/api/eval/runs", { headers: viewerAuth })).status).toBe(200);
    expect((await app.request(`/api/eval/runs/${first.id}`, { headers: viewerAuth })).status).toBe(200);
    expect((await start({ questions: SET }, viewerAuth)).status).toBe(403);
    const none = await memberWith(app, org.org_id, ["knowledge:manage"]);
    expect((await app.request("/api/eval/runs", { headers: { authorization: `Bearer ${none.cookie.split("=")[1]}` } })).status).toBe(403);
    expect((await app.request("/api/eval/runs")).status).toBe(401);
    expect((await start({ questions: SET }, {})).status).toBe(401);
  });
});

describe("the time bound", () => {
  test("a run still answering when its bound passes is stored as partial, with the questions answered by then", async () => {
    const fake = await fakeOpenAi();
    // Development allows a loopback model URL.
    const slow = await createTestApp({ NODE_ENV: "development", LLM_PROVIDER: "openai", LLM_MODEL: "m", LLM_API_KEY: "sk-test", LLM_BASE_URL: fake.baseUrl });
    try {
      const o = await seedOrg(slow);
      const headers = { authorization: `Bearer ${await signIn(slow, o.admin_email, o.password)}` };
      let release!: (v?: unknown) => void;
      const held = new Promise((resolve) => (release = resolve));
      fake.enqueue({ steps: [{ text: "The first answer." }] });
      fake.enqueue({ steps: [{ text: "The sec" }, { until: held }, { text: "ond answer." }] });
      const pending = slow.request("/api/eval/runs", {
        method: "POST",
        headers,
        json: { questions: [{ question: "one?" }, { question: "two?" }, { question: "three?" }] },
      });
      while (fake.requests.length < 2) await Bun.sleep(10);
      // The model's own deadline (60 s a request) passes too; the run's bound is what stops it.
      slow.clock.advance(EVAL_RUN.ms);
      const res = await pending;
      release();
      expect(res.status).toBe(201);
      const run = (await res.json()) as Run;
      expect(run).toMatchObject({ status: "partial", questions: 3, answered_questions: 1 });
      expect(run.error).toBe("Stopped after 1 of 3 questions: a run answers for at most 5 minutes.");
      expect(run.results.map((r) => r.question)).toEqual(["one?"]);
      expect(run.totals.questions).toBe(1);
      expect(fake.requests.length).toBe(2); // the third question was never asked

      // A model that fails stops the run the same way, saying so.
      fake.enqueue({ steps: [{ text: "Fine." }] });
      fake.enqueue({ status: 400, body: { error: { message: "bad request", type: "invalid_request_error" } } });
      const failing = (await (
        await slow.request("/api/eval/runs", {
          method: "POST",
          headers,
          json: { questions: [{ question: "one?" }, { question: "two?" }, { question: "three?" }] },
        })
      ).json()) as Run;
      expect(failing).toMatchObject({ status: "partial", answered_questions: 1 });
      expect(failing.error).toStartWith("Stopped after 1 of 3 questions: the model failed (");
      // Running it again asks the whole set, not only the question it got to answer.
      expect((await runQuestions(slow.deps, o.org_id, failing.id)).questions).toEqual([{ question: "one?" }, { question: "two?" }, { question: "three?" }]);
      const page = await (await slow.request("/dashboard/eval", { headers })).text();
      expect(page).toContain("three?"); // the form is filled with the newest run's whole set
    } finally {
      await slow.close();
      await fake.close();
    }
  }, 120_000);
});
