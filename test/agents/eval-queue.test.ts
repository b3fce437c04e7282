// Whose turn it is to answer an evaluation run (src/agents/eval-queue.ts), each bound at its limit
// and one over: a member's one run in flight, an org's one run answering and one waiting, a
// process's EVAL_QUEUE.running answering and EVAL_QUEUE.waiting waiting. The model is a fake
// server on loopback that holds every answer until the test lets it go, so a run stays answering
// for as long as the test needs. Also: the text a run may hold, blank questions, and a run that
// meets a database failure is kept as partial.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EVAL_QUEUE } from "../../src/agents/eval-queue.ts";
import { EVAL_RUN } from "../../src/agents/eval-runs.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { memberWith } from "../dashboard/helpers.ts";
import { type FakeLlm, fakeOpenAi } from "../support/fake-llm.ts";

let app: TestApp;
let fake: FakeLlm;
let release!: () => void;

beforeAll(async () => {
  fake = await fakeOpenAi();
  // Development allows a loopback model URL.
  app = await createTestApp({ NODE_ENV: "development", LLM_PROVIDER: "openai", LLM_MODEL: "m", LLM_API_KEY: "sk-test", LLM_BASE_URL: fake.baseUrl });
}, 60_000);
afterAll(async () => {
  await app.close();
  await fake.close();
});

function holdModel() {
  const held = new Promise<void>((resolve) => (release = resolve));
  fake.fallback = { steps: [{ text: "Held " }, { until: held }, { text: "answer." }] };
}

async function newOrg() {
  const org = await seedOrg(app);
  return { org, auth: { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` } };
}
const bearer = async (orgId: string) => ({ authorization: `Bearer ${(await memberWith(app, orgId, ["agents:manage"])).cookie.split("=")[1]}` });
const start = (auth: { authorization: string }, questions: unknown[] = [{ question: "one?" }]) =>
  app.request("/api/eval/runs", { method: "POST", headers: auth, json: { questions } });
async function until(check: () => boolean) {
  for (let i = 0; i < 2000 && !check(); i++) await Bun.sleep(10);
  expect(check()).toBe(true);
}
type Refusal = { error: { code: string; message: string } };

describe("runs in flight", () => {
  test("member, org and process bounds at their limit and one over; the waiting runs answer when their turn comes and say they waited", async () => {
    holdModel();
    fake.reset();
    const a = await newOrg();
    const pending: Promise<Response>[] = [];
    pending.push(start(a.auth));
    await until(() => fake.requests.length === 1); // A's first run is answering
    // The same member again: one over the member's one run in flight.
    const again = await start(a.auth);
    expect(again.status).toBe(429);
    expect(again.headers.get("retry-after")).toBe(String(EVAL_QUEUE.retryAfter));
    expect(((await again.json()) as Refusal).error.code).toBe("rate_limited");
    // Another member of the org waits behind it (the org's one waiting place).
    pending.push(start(await bearer(a.org.org_id)));
    await until(() => app.deps.evalRuns.orgs.load(a.org.org_id).waiting === 1);
    // A third member of the org: one over the org's two in flight.
    const third = await start(await bearer(a.org.org_id));
    expect(third.status).toBe(429);
    expect(((await third.json()) as Refusal).error.message).toContain("This organisation already has 2 runs");

    // Other orgs: EVAL_QUEUE.running answer at once, EVAL_QUEUE.waiting wait, the next is refused.
    for (let i = 1; i < EVAL_QUEUE.running; i++) pending.push(start((await newOrg()).auth));
    await until(() => fake.requests.length === EVAL_QUEUE.running);
    for (let i = 0; i < EVAL_QUEUE.waiting; i++) pending.push(start((await newOrg()).auth));
    await until(() => app.deps.evalRuns.all.load().waiting === EVAL_QUEUE.waiting);
    expect(app.deps.evalRuns.all.load()).toEqual({ running: EVAL_QUEUE.running, waiting: EVAL_QUEUE.waiting });
    const over = await start((await newOrg()).auth);
    expect(over.status).toBe(503);
    expect(over.headers.get("retry-after")).toBe(String(EVAL_QUEUE.retryAfter));
    expect(((await over.json()) as Refusal).error.code).toBe("busy");
    expect(fake.requests.length).toBe(EVAL_QUEUE.running); // nobody waiting reached the model

    release();
    fake.fallback = { steps: [{ text: "An answer." }] };
    const answers = await Promise.all(pending);
    expect(answers.map((r) => r.status)).toEqual(pending.map(() => 201));
    const runs = (await Promise.all(answers.map((r) => r.json()))) as { status: string; queue: { ahead: number; waited_ms: number } }[];
    expect(runs.every((r) => r.status === "done")).toBe(true);
    expect(runs[0]!.queue).toEqual({ ahead: 0, waited_ms: expect.any(Number) });
    expect(runs[1]!.queue.ahead).toBeGreaterThan(0); // waited behind the org's first run
    expect(runs.filter((r) => r.queue.ahead > 0).length).toBe(1 + EVAL_QUEUE.waiting);
    expect(app.deps.evalRuns.all.load()).toEqual({ running: 0, waiting: 0 });
    // The member's turn is free again.
    expect((await start(a.auth)).status).toBe(201);
  }, 120_000);

  test("the dashboard says a run waited, and shows a refusal next to the questions", async () => {
    holdModel();
    fake.reset();
    const { org, auth } = await newOrg();
    const cookie = { cookie: `svc_session=${auth.authorization.slice(7)}`, origin: app.deps.config.baseUrl };
    const first = start(await bearer(org.org_id));
    await until(() => fake.requests.length === 1);
    const queued = app.request("/dashboard/eval", { headers: cookie, form: { agent_id: "", content: '{"question": "two?"}' } });
    await until(() => app.deps.evalRuns.orgs.load(org.org_id).waiting === 1);
    const refused = await app.request("/dashboard/eval", { headers: { ...cookie }, form: { agent_id: "", content: '{"question": "three?"}' } });
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain("You already have a run answering or waiting");
    release();
    fake.fallback = { steps: [{ text: "An answer." }] };
    expect((await first).status).toBe(201);
    const done = await queued;
    expect(done.status).toBe(303);
    const page = await app.request(done.headers.get("location")!, {
      headers: { cookie: `${cookie.cookie}; ${done.headers.getSetCookie()[0]!.split(";")[0]}` },
    });
    expect(await page.text()).toMatch(/It waited \d+ s for its turn behind 1 other run\./);
  }, 60_000);
});

describe("what a run may hold", () => {
  test("the text of a run at its limit and one over", async () => {
    fake.fallback = { steps: [{ text: "An answer." }] };
    const { auth } = await newOrg();
    const n = EVAL_RUN.textChars / EVAL_RUN.chars;
    const full = Array.from({ length: n }, () => ({ question: "q".repeat(EVAL_RUN.chars) }));
    expect((await start(auth, full)).status).toBe(201);
    const over = [...full.slice(0, -1), { question: "q".repeat(EVAL_RUN.chars - 1), expected_phrase: "xy" }];
    const refused = await start(auth, over);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as Refusal).error.message).toContain(
      `at most ${EVAL_RUN.textChars} characters in all; this set has ${EVAL_RUN.textChars + 1}`,
    );
    // An expected passage is part of the run's text too.
    const passage = [...full.slice(0, -1), { question: "q".repeat(EVAL_RUN.chars - 1), expected_passage: "xy" }];
    const alsoRefused = await start(auth, passage);
    expect(alsoRefused.status).toBe(400);
    expect(((await alsoRefused.json()) as Refusal).error.message).toContain(`this set has ${EVAL_RUN.textChars + 1}`);
  }, 60_000);

  test("a blank question or expectation is refused, not answered as an empty one", async () => {
    fake.fallback = { steps: [{ text: "An answer." }] };
    const { auth } = await newOrg();
    for (const blank of [{ question: " \t\n " }, { question: "ok?", expected_doc: "   " }, { question: "ok?", expected_phrase: "\u00a0" }]) {
      const res = await start(auth, [blank]);
      expect(res.status).toBe(400);
    }
  }, 60_000);

  test("a database failure halfway through keeps the run as partial, saying an internal error stopped it", async () => {
    holdModel();
    fake.reset();
    const { auth, org } = await newOrg();
    const pending = start(auth, [{ question: "one?" }, { question: "two?" }, { question: "three?" }]);
    await until(() => fake.requests.length === 1);
    // The table every question's retrieval reads first goes away while the first is answered (and
    // this process's copy of what it holds is dropped, as a change would: src/knowledge/state-cache.ts).
    await app.deps.db.execute("alter table knowledge_settings rename to knowledge_settings_gone" as never);
    app.deps.knowledge.states.changing(org.org_id);
    try {
      release();
      const res = await pending;
      expect(res.status).toBe(201);
      const run = (await res.json()) as { status: string; answered_questions: number; error: string };
      expect(run).toMatchObject({ status: "partial", answered_questions: 1 });
      expect(run.error).toBe("Stopped after 1 of 3 questions: an internal error stopped it (the server's log has the details).");
      expect(app.logs.some((l) => l.msg === "evaluation run stopped by an internal error")).toBe(true);
    } finally {
      await app.deps.db.execute("alter table knowledge_settings_gone rename to knowledge_settings" as never);
    }
  }, 60_000);
});
