// "Test your agent" must not starve everyone else (README "Measuring answers"): four runs of long
// questions sent at once used to hold the event loop for 13 s (/healthz answered that late),
// because a run answered its questions back to back without ever leaving the microtask queue, and
// nothing bounded how many ran or how much text they asked about. /healthz is asked every 100 ms
// meanwhile; the bound asserted is generous (a busy 2-core machine's noise is far below it, the
// bug was ten times above it): it only tells "frozen" from "not frozen".
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EVAL_RUN } from "../../src/agents/eval-runs.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { memberWith } from "../dashboard/helpers.ts";
import { longestHealthz } from "../support/stall.ts";

let app: TestApp;
const members: { authorization: string }[] = [];

const WORDS = ["shipping", "refund", "password", "delivery", "account", "billing", "invoice", "warranty", "xyzzy", "frobnicate"];
/** A question of `chars` characters of words the documents use, and some they do not. */
const question = (i: number, chars: number) => ({
  question: Array.from({ length: chars }, (_, j) => `${WORDS[(i + j) % WORDS.length]}${j % 37}`)
    .join(" ")
    .slice(0, chars),
});

beforeAll(async () => {
  app = await createTestApp({ LLM_PROVIDER: "builtin" });
  // Two orgs, two members each: every run is someone's first, so all four are let in.
  for (let o = 0; o < 2; o++) {
    const org = await seedOrg(app);
    const admin = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
    for (let d = 0; d < 20; d++)
      await app.request("/api/docs", {
        method: "POST",
        headers: admin,
        json: {
          title: `Page ${d} about ${WORDS[d % WORDS.length]}`,
          body: `## ${WORDS[(d + 1) % WORDS.length]}\nAbout ${WORDS[d % WORDS.length]} ${d}, in some words.`,
        },
      });
    members.push(admin, { authorization: `Bearer ${(await memberWith(app, org.org_id, ["agents:manage"])).cookie.split("=")[1]}` });
  }
}, 120_000);
afterAll(() => app.close());

const start = (auth: { authorization: string }, questions: unknown[]) => app.request("/api/eval/runs", { method: "POST", headers: auth, json: { questions } });

describe("four runs at once", () => {
  test("500 questions of 4,000 characters each: refused at once as too much text, and /healthz answered meanwhile", async () => {
    const set = Array.from({ length: EVAL_RUN.questions }, (_, i) => question(i, EVAL_RUN.chars));
    const { result, longestMs } = await longestHealthz((path) => app.request(path), Promise.all(members.map((m) => start(m, set))));
    expect(result.map((r) => r.status)).toEqual([400, 400, 400, 400]);
    const body = (await result[0]!.json()) as { error: { message: string } };
    expect(body.error.message).toContain(`at most ${EVAL_RUN.textChars} characters`);
    expect(longestMs).toBeLessThan(1_500);
  }, 180_000);

  test("the most text a run may hold, four times: all answered, two of them after waiting their turn, /healthz answered meanwhile", async () => {
    const set = Array.from({ length: EVAL_RUN.textChars / EVAL_RUN.chars }, (_, i) => question(i, EVAL_RUN.chars));
    const { result, longestMs } = await longestHealthz((path) => app.request(path), Promise.all(members.map((m) => start(m, set))));
    expect(longestMs).toBeLessThan(1_500);
    expect(result.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    const runs = (await Promise.all(result.map((r) => r.json()))) as { answered_questions: number; queue: { ahead: number } }[];
    expect(runs.every((r) => r.answered_questions === set.length)).toBe(true);
    // One org answers one run at a time: of each org's two, one waited.
    expect(runs.filter((r) => r.queue.ahead > 0).length).toBeGreaterThanOrEqual(2);
  }, 300_000);
});
