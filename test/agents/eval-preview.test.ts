// POST /api/eval/preview ("Try a question"): one question answered with the passage it came from,
// its confidence and why (the question's words found and not, the first page's lead, the pages
// ranked next); nothing stored as a conversation; roles, another org's agent, bounds at their limit
// and one over, the per-member limit. And runs judged by an expected passage, exported in CSV.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count } from "drizzle-orm";
import { EVAL_PREVIEW } from "../../src/agents/eval-preview.ts";
import { conversations } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { parseCsv } from "../support/csv.ts";
import { memberWith } from "../dashboard/helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let auth: { authorization: string };
const ids: Record<string, string> = {};

type Preview = {
  reply: string;
  confidence: number;
  answered: boolean;
  sources: { doc_id: string; title: string }[];
  passage: { doc_id: string; title: string; text: string } | null;
  reasons: {
    terms: { word: string; found: string }[];
    added: string[];
    first: { doc_id: string; title: string; score: number } | null;
    lead: number | null;
    next: { doc_id: string; title: string; score: number }[];
  };
};

const ask = (json: unknown, headers: Record<string, string> = auth) => app.request("/api/eval/preview", { method: "POST", headers, json });

beforeAll(async () => {
  app = await createTestApp({ LLM_PROVIDER: "builtin" });
  org = await seedOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  for (const [name, doc] of Object.entries({
    password: {
      title: "Resetting your password",
      body: "## Reset\nChoose Forgot password on the sign-in page and follow the emailed link.\n\n## Locked out\nAfter five wrong passwords the account is locked for an hour.",
    },
    shipping: { title: "Shipping times", body: "## How long shipping takes\nShipping takes three to five working days." },
    account: { title: "Your account", body: "## Email\nChange the email of your account under Settings. Your password stays the same." },
  })) {
    const res = await app.request("/api/docs", { method: "POST", headers: auth, json: doc });
    ids[name] = ((await res.json()) as { id: string }).id;
  }
}, 60_000);
afterAll(() => app.close());

describe("try a question", () => {
  test("the answer, the passage it came from, its confidence and why; nothing stored", async () => {
    const [before] = await app.deps.db.select({ n: count() }).from(conversations);
    const res = await ask({ question: "How do I reset my password with a zeppelin?" });
    expect(res.status).toBe(200);
    const p = (await res.json()) as Preview;
    expect(p.sources[0]).toEqual({ doc_id: ids.password!, title: "Resetting your password" });
    expect(p.passage).toMatchObject({ doc_id: ids.password, title: "Resetting your password" });
    expect(p.passage!.text).toContain("Forgot password");
    // A subject no page mentions ("zeppelin") makes it unlikely the articles answer: below the
    // threshold, and the reply names the closest article rather than quoting it (README "Measuring answers").
    expect(p.confidence).toBeLessThan(0.5);
    expect(p.reply).toContain('"Resetting your password"');
    expect(p.reasons.terms).toEqual([
      { word: "reset", found: "passage" },
      { word: "password", found: "passage" },
      { word: "zeppelin", found: "none" },
    ]);
    expect(p.reasons.first).toMatchObject({ doc_id: ids.password, title: "Resetting your password" });
    expect(p.reasons.next.map((n) => n.title)).toEqual(["Your account"]);
    expect(p.reasons.lead).toBeCloseTo(1 - p.reasons.next[0]!.score / p.reasons.first!.score, 2);
    expect(p.reasons.lead!).toBeGreaterThan(0);
    const [after] = await app.deps.db.select({ n: count() }).from(conversations);
    expect(after!.n).toBe(before!.n);
  });

  test("a word found only on another page, a corrected spelling, and a question no page answers", async () => {
    const p = (await (await ask({ question: "How long does shiping take for my email?" })).json()) as Preview;
    expect(p.reasons.added).toContain("ship");
    expect(p.reasons.terms).toContainEqual({ word: "email", found: "pages" });
    const none = (await (await ask({ question: "Do you sell zeppelins?" })).json()) as Preview;
    expect(none).toMatchObject({ sources: [], passage: null, answered: false });
    expect(none.reasons).toMatchObject({ first: null, lead: null, next: [] });
  });

  test("roles: agents:manage tries, agents:view cannot; no session is 401", async () => {
    const viewer = await memberWith(app, org.org_id, ["agents:view"]);
    expect((await ask({ question: "reset password?" }, { authorization: `Bearer ${viewer.cookie.split("=")[1]}` })).status).toBe(403);
    const manager = await memberWith(app, org.org_id, ["agents:manage"]);
    expect((await ask({ question: "reset password?" }, { authorization: `Bearer ${manager.cookie.split("=")[1]}` })).status).toBe(200);
    expect((await ask({ question: "reset password?" }, {})).status).toBe(401);
  });

  test("another org's agent is 404, and its knowledge is never searched", async () => {
    const other = await seedOrg(app);
    const otherAuth = { authorization: `Bearer ${await signIn(app, other.admin_email, other.password)}` };
    expect((await ask({ question: "reset password?", agent_id: org.agent_id }, otherAuth)).status).toBe(404);
    const own = (await (await ask({ question: "How do I reset my password?" }, otherAuth)).json()) as Preview;
    expect(own).toMatchObject({ sources: [], passage: null });
    expect((await ask({ question: "reset password?", agent_id: "not-a-uuid" })).status).toBe(404);
  });

  test("bounds: a question of the longest length and one over, empty, a long agent id", async () => {
    const m = await memberWith(app, org.org_id, ["agents:manage"]);
    const h = { authorization: `Bearer ${m.cookie.split("=")[1]}` };
    expect((await ask({ question: "x".repeat(EVAL_PREVIEW.chars) }, h)).status).toBe(200);
    expect((await ask({ question: "x".repeat(EVAL_PREVIEW.chars + 1) }, h)).status).toBe(400);
    expect((await ask({ question: "" }, h)).status).toBe(400);
    expect((await ask({ question: "   " }, h)).status).toBe(400);
    expect((await ask({ question: "q", agent_id: "x".repeat(65) }, h)).status).toBe(400);
  });

  test(`at most ${EVAL_PREVIEW.perMinute} questions a minute per member`, async () => {
    const m = await memberWith(app, org.org_id, ["agents:manage"]);
    const h = { authorization: `Bearer ${m.cookie.split("=")[1]}` };
    for (let i = 0; i < EVAL_PREVIEW.perMinute; i++) expect((await ask({ question: `reset password ${i}?` }, h)).status).toBe(200);
    const over = await ask({ question: "one more?" }, h);
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toBeTruthy();
    // Another member is not held back by this one.
    const n = await memberWith(app, org.org_id, ["agents:manage"]);
    expect((await ask({ question: "reset password?" }, { authorization: `Bearer ${n.cookie.split("=")[1]}` })).status).toBe(200);
    app.clock.advance(61_000);
    expect((await ask({ question: "again?" }, h)).status).toBe(200);
  });
});

describe("runs judged by the expected passage", () => {
  test("right only from the right page AND the passage holding the text; kept in the run and its CSV", async () => {
    const res = await app.request("/api/eval/runs", {
      method: "POST",
      headers: auth,
      json: {
        questions: [
          { question: "How do I reset my password?", expected_doc: "Resetting your password", expected_passage: "choose  FORGOT password" },
          { question: "How do I reset my password?", expected_doc: "Resetting your password", expected_passage: "locked for an hour" },
          { question: "How do I reset my password?", expected_passage: "emailed link" },
        ],
      },
    });
    expect(res.status).toBe(201);
    const run = (await res.json()) as { id: string; results: { correct: boolean | null; expected_passage?: string }[] };
    expect(run.results.map((r) => r.correct)).toEqual([true, false, true]);
    expect(run.results[1]!.expected_passage).toBe("locked for an hour");
    const rows = parseCsv(await (await app.request(`/api/eval/runs/${run.id}?format=csv`, { headers: auth })).text());
    expect(rows[0]!.slice(0, 4)).toEqual(["question", "expected_doc", "expected_phrase", "expected_passage"]);
    expect(rows.slice(1).map((r) => r[3])).toEqual(["choose  FORGOT password", "locked for an hour", "emailed link"]);
    const long = { question: "q", expected_passage: "x".repeat(4001) };
    expect((await app.request("/api/eval/runs", { method: "POST", headers: auth, json: { questions: [long] } })).status).toBe(400);
  });
});
