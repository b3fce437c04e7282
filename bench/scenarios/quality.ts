// Answer quality on real help-centre pages and real customers' questions: the doc2dial
// development part (bench/README.md "Quality"), read from ../shared/eval/doc2dial/dev.json next to
// the repository (or BENCH_QUALITY_DATA) and never copied into it. Every page is created in a fresh
// org through POST /api/docs; every first message is asked in a new session through
// POST /api/sdk/chat with the builtin provider, every follow-up with its earlier turns as
// `conversation_history`. A plain BM25 over whole pages (bench/bm25.ts) ranks the same pages in the
// same run as the baseline. Then a generated 5,000-page knowledge base is asked one question at a
// time (1 connection) for the chat's latency at that size, on PGlite and on PostgreSQL. Writes docs/quality.md (bench/quality-doc.ts).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HIGH_SDK_LIMITS } from "./chat.ts";
import { BENCH_PASSWORD, sessionBearer } from "../mcp.ts";
import { Bm25 } from "../bm25.ts";
import { fixed, printTable, stats } from "../report.ts";
import { type BenchContext, createBenchOrg, ourServer, ROOT, startServer } from "../runner.ts";
import { machine } from "../figures.ts";
import { type LargeRun, type QualityRun, type Scored, totals, writeQualityDoc } from "../quality-doc.ts";
import { fitHeld, observations, shares } from "../quality-fit.ts";
import { createDocs, printXquad, type XquadData, xquadLanguages } from "../quality-xquad.ts";
import { CONFIDENCE } from "../../src/agents/pipeline/confidence.ts";
import { t } from "../../src/i18n/catalogue.ts";

/**
 * Whether an answer is the builtin provider's English no-answer reply (the catalogue's
 * `agent.no_answer` or `agent.no_answer_near`, whatever title it names): the bench reads answers
 * over HTTP, where the turn's `answered: false` is not part of the wire format.
 */
const [nearHead = "", nearTail = ""] = t("en", "agent.no_answer_near", { title: "\u0000" }).split("\u0000");
const isNoAnswer = (text: string) => text === t("en", "agent.no_answer") || (text.startsWith(nearHead) && text.endsWith(nearTail));

interface Dataset {
  dataset: string;
  docs: { id: string; domain: string; title: string; body: string }[];
  questions: { id: string; doc_id: string; text: string }[];
  followups: { id: string; doc_id: string; text: string; history: { speaker: string; text: string }[] }[];
}

export const QUALITY_DATA = process.env.BENCH_QUALITY_DATA ?? join(ROOT, "..", "shared", "eval", "doc2dial", "dev.json");
/** XQuAD's development part (the same shape); its English pages and questions are the second corpus. */
export const XQUAD_DATA = process.env.BENCH_XQUAD_DATA ?? join(ROOT, "..", "shared", "eval", "xquad", "dev.json");
const LARGE_PAGES = Number(process.env.BENCH_QUALITY_PAGES ?? 5000);
const LARGE_QUESTIONS = 200;

interface ChatAnswer {
  sources?: { doc_id: string }[];
  confidence?: number;
  text?: string;
}

async function ask(url: string, key: string, message: string, history?: { speaker: string; text: string }[]): Promise<{ answer: ChatAnswer; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${url}/api/sdk/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      message: message.slice(0, 4000),
      ...(history ? { conversation_history: history.slice(-50).map((h) => ({ speaker: h.speaker, text: h.text.slice(0, 4000) })) } : {}),
    }),
  });
  const body = (await res.json()) as ChatAnswer;
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`POST /api/sdk/chat: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return { answer: body, ms };
}

/** The English part of XQuAD: its pages and questions. */
function english(data: Dataset): Dataset {
  return { ...data, docs: data.docs.filter((d) => d.domain === "en"), questions: data.questions.filter((q) => q.doc_id.startsWith("en:")), followups: [] };
}

/** Each question in a new session; sources as the dataset's page ids (`theirId`), and the baseline's ranking when given. */
async function askAll(url: string, key: string, questions: Dataset["questions"], theirId: Map<string, string>, bm25: Bm25 | undefined): Promise<Scored[]> {
  const out: Scored[] = [];
  for (const q of questions) {
    const { answer } = await ask(url, key, q.text);
    out.push({
      id: q.id,
      text: q.text,
      expected: q.doc_id,
      sources: (answer.sources ?? []).map((s) => theirId.get(s.doc_id) ?? s.doc_id),
      confidence: answer.confidence ?? 0,
      baseline: bm25 ? bm25.rank(q.text, 3) : [],
      noAnswer: isNoAnswer(answer.text ?? ""),
    });
  }
  return out;
}

/** XQuAD's English pages in an org of their own: asked their own questions, and doc2dial's, which they cannot answer. */
async function xquadRun(work: string, xquad: Dataset, doc2dial: Dataset): Promise<{ own: Scored[]; offTopic: Scored[] }> {
  const env = { DATA_DIR: join(work, "quality-xquad"), LOG_LEVEL: "error", LLM_PROVIDER: "builtin", ...HIGH_SDK_LIMITS };
  const org = await createBenchOrg(env, "quality-xquad", { name: "Quality bench, XQuAD", email: "quality-xquad@example.com", flags: [] });
  const server = await startServer(ourServer("ours, PGlite, XQuAD", env), work);
  try {
    const token = await sessionBearer(server.url, org.email, BENCH_PASSWORD);
    const ids = await createDocs(
      server.url,
      token,
      xquad.docs.map((d) => ({ title: d.title, body: d.body })),
    );
    const theirId = new Map(xquad.docs.map((d, i) => [ids[i]!, d.id]));
    const bm25 = new Bm25(xquad.docs.map((d) => ({ id: d.id, text: `${d.title}\n${d.body}` })));
    return {
      own: await askAll(server.url, org.widgetKey, xquad.questions, theirId, bm25),
      offTopic: await askAll(server.url, org.widgetKey, doc2dial.questions, theirId, undefined),
    };
  } finally {
    await server.stop();
  }
}

/** A generated knowledge base of `pages` pages (deterministic), and questions whose page is known. */
export function generatedPages(pages: number): { docs: { title: string; body: string }[]; questions: { text: string; page: number }[] } {
  const topics = [
    "invoice",
    "password",
    "refund",
    "shipping",
    "account",
    "subscription",
    "export",
    "integration",
    "permission",
    "notification",
    "billing",
    "webhook",
    "report",
    "backup",
    "domain",
    "language",
  ];
  const verbs = ["change", "cancel", "update", "download", "reset", "enable", "disable", "transfer", "verify", "schedule"];
  const things = ["address", "plan", "card", "email", "team", "workspace", "token", "receipt", "device", "calendar", "region", "profile"];
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
  const docs: { title: string; body: string }[] = [];
  for (let i = 0; i < pages; i++) {
    const topic = topics[rand(topics.length)]!;
    const verb = verbs[rand(verbs.length)]!;
    const thing = things[rand(things.length)]!;
    const code = `item${i}`;
    const sections = Array.from(
      { length: 4 },
      (_, s) =>
        `## ${verbs[rand(verbs.length)]} the ${things[rand(things.length)]}\n${Array.from({ length: 6 }, () => `To ${verbs[rand(verbs.length)]} your ${topics[rand(topics.length)]} ${things[rand(things.length)]}, open Settings and choose ${things[rand(things.length)]} ${s}.`).join(" ")}`,
    );
    docs.push({ title: `How to ${verb} the ${topic} ${thing} (${code})`, body: `This page explains ${code}.\n\n${sections.join("\n\n")}` });
  }
  const questions = Array.from({ length: LARGE_QUESTIONS }, () => {
    const page = rand(pages);
    return { text: `How can I ${docs[page]!.title.toLowerCase().replace(/^how to /, "")}?`, page };
  });
  return { docs, questions };
}

/**
 * `pages` generated pages created in a fresh org on one engine, then LARGE_QUESTIONS questions asked
 * one at a time (1 connection), each in a new session: the chat's latency at that size.
 */
async function largeKnowledgeBase(work: string, database: string, engineEnv: Record<string, string>): Promise<LargeRun> {
  const env = { ...engineEnv, LOG_LEVEL: "error", LLM_PROVIDER: "builtin", ...HIGH_SDK_LIMITS };
  const org = await createBenchOrg(env, `quality-large, ${database}`, { name: "Large KB", email: `large-kb-${database.toLowerCase()}@example.com`, flags: [] });
  const server = await startServer(ourServer(`ours, ${database}`, env), work);
  try {
    const token = await sessionBearer(server.url, org.email, BENCH_PASSWORD);
    const generated = generatedPages(LARGE_PAGES);
    const ids = await createDocs(server.url, token, generated.docs);
    const samples: number[] = [];
    let hits = 0;
    await ask(server.url, org.widgetKey, generated.questions[0]!.text); // the index is built on first use
    for (const q of generated.questions) {
      const { answer, ms } = await ask(server.url, org.widgetKey, q.text);
      samples.push(ms);
      if (answer.sources?.[0]?.doc_id === ids[q.page]) hits++;
    }
    const large = { pages: LARGE_PAGES, questions: samples.length, ms: stats(samples), recall1: hits / samples.length, database };
    return large;
  } finally {
    await server.stop();
  }
}

export async function quality({ work, pg }: BenchContext): Promise<void> {
  if (!existsSync(QUALITY_DATA)) {
    console.log(`\nquality: skipped — ${QUALITY_DATA} is absent (the doc2dial development part; set BENCH_QUALITY_DATA to its path).`);
    return;
  }
  const data = JSON.parse(readFileSync(QUALITY_DATA, "utf8")) as Dataset;
  const env = { DATA_DIR: join(work, "quality-data"), LOG_LEVEL: "error", LLM_PROVIDER: "builtin", ...HIGH_SDK_LIMITS };
  const org = await createBenchOrg(env, "quality", { name: "Quality bench", email: "quality-bench@example.com", flags: [] });
  const server = await startServer(ourServer("ours, PGlite", env), work);
  let run: QualityRun;
  try {
    const token = await sessionBearer(server.url, org.email, BENCH_PASSWORD);
    const started = performance.now();
    const ids = await createDocs(
      server.url,
      token,
      data.docs.map((d) => ({ title: d.title, body: d.body })),
    );
    const loadS = (performance.now() - started) / 1000;
    const ourId = new Map(data.docs.map((d, i) => [d.id, ids[i]!]));
    const theirId = new Map(data.docs.map((d, i) => [ids[i]!, d.id]));
    const bm25 = new Bm25(data.docs.map((d) => ({ id: d.id, text: `${d.title}\n${d.body}` })));

    const first: Scored[] = [];
    const latencies: number[] = [];
    for (const q of data.questions) {
      const { answer, ms } = await ask(server.url, org.widgetKey, q.text);
      latencies.push(ms);
      first.push({
        id: q.id,
        text: q.text,
        expected: q.doc_id,
        sources: (answer.sources ?? []).map((s) => theirId.get(s.doc_id) ?? s.doc_id),
        confidence: answer.confidence ?? 0,
        baseline: bm25.rank(q.text, 3),
        noAnswer: isNoAnswer(answer.text ?? ""),
      });
    }
    const followups: Scored[] = [];
    for (const f of data.followups) {
      const { answer } = await ask(server.url, org.widgetKey, f.text, f.history);
      const earlier = f.history.filter((h) => h.speaker === "user").map((h) => h.text);
      followups.push({
        id: f.id,
        text: f.text,
        expected: f.doc_id,
        sources: (answer.sources ?? []).map((s) => theirId.get(s.doc_id) ?? s.doc_id),
        confidence: answer.confidence ?? 0,
        baseline: bm25.rank([f.text, ...earlier].join("\n"), 3),
        noAnswer: isNoAnswer(answer.text ?? ""),
      });
    }
    void ourId;
    const xquad = existsSync(XQUAD_DATA) ? english(JSON.parse(readFileSync(XQUAD_DATA, "utf8")) as Dataset) : undefined;
    // XQuAD's questions asked of doc2dial's pages, which cannot answer them.
    const offTopic: { name: string; rows: Scored[] }[] = [];
    if (xquad)
      offTopic.push({ name: "XQuAD (en) questions of doc2dial's pages", rows: await askAll(server.url, org.widgetKey, xquad.questions, theirId, undefined) });
    run = {
      at: new Date().toISOString(),
      dataset: data.dataset,
      docs: data.docs.length,
      loadS,
      first,
      followups,
      chatMs: stats(latencies),
      machine: machine(),
      offTopic,
    };
    if (xquad) {
      const other = await xquadRun(work, xquad, data);
      run.offTopic!.push({ name: "doc2dial questions of XQuAD's (en) pages", rows: other.offTopic });
      run.corpora = [
        { name: "doc2dial", rows: [...first, ...followups] },
        { name: "XQuAD (en)", rows: other.own },
      ];
      const rows = observations([
        { name: "doc2dial", docs: data.docs, questions: data.questions, followups: data.followups },
        { name: "XQuAD (en)", docs: xquad.docs, questions: xquad.questions, followups: [] },
      ]);
      run.fit = { inUse: [CONFIDENCE.heldIntercept, CONFIDENCE.heldCoverage, CONFIDENCE.unknownWord], fitted: fitHeld(rows), sets: shares(rows) };
      // Every language: one org per language, and all twelve in one.
      run.xquad = await xquadLanguages(work, JSON.parse(readFileSync(XQUAD_DATA, "utf8")) as XquadData);
    } else console.log(`\nquality: the second corpus skipped — ${XQUAD_DATA} is absent (set BENCH_XQUAD_DATA to its path).`);
  } finally {
    await server.stop();
  }

  // The chat's latency over a large knowledge base, one connection, on each engine.
  if (LARGE_PAGES > 0) {
    run.large = [];
    const engines: { database: string; env: Record<string, string> }[] = [{ database: "PGlite", env: { DATA_DIR: join(work, "quality-large") } }];
    if ("url" in pg) engines.push({ database: "PostgreSQL", env: { DATABASE_URL: pg.url, SECRET_KEY: pg.secretKey } });
    else console.log(`\nquality: the large knowledge base on PostgreSQL skipped: ${pg.skipped}`);
    for (const engine of engines) run.large.push(await largeKnowledgeBase(work, engine.database, engine.env));
  }
  const f = totals(run.first);
  const u = totals(run.followups);
  printTable(
    `Answer quality, ${run.dataset}: ${run.docs} pages, ${run.first.length} first messages, ${run.followups.length} follow-ups (builtin provider, one new session per question)`,
    ["measure", "ours", "plain BM25, whole pages"],
    [
      ["right page first in sources (recall@1)", fixed(f.recall1, 2), fixed(f.baseline1, 2)],
      ["among the first three (recall@3)", fixed(f.recall3, 2), fixed(f.baseline3, 2)],
      ["answered with confidence ≥ 0.5", fixed(f.answered, 2), "—"],
      ["answered with confidence ≥ 0.5 from another page", fixed(f.wrong, 2), "—"],
      ["follow-ups with conversation_history (recall@1)", fixed(u.recall1, 2), `${fixed(u.baseline1, 2)} (earlier user turns added)`],
    ],
  );
  for (const set of run.offTopic ?? []) console.log(`${set.name}: answered with confidence ≥ 0.5 ${fixed(totals(set.rows).answered, 3)} (goal ≤ 0.05)`);
  for (const corpus of run.corpora ?? []) {
    const t = totals(corpus.rows);
    console.log(`${corpus.name}: recall@1 ${fixed(t.recall1, 2)}, answered ${fixed(t.answered, 2)}, confidently wrong ${fixed(t.wrong, 3)}`);
  }
  if (run.fit) {
    console.log(
      `the "held" curve (intercept, coverage, unknown word): in use ${run.fit.inUse.map((v) => fixed(v, 2)).join(", ")}; fitted in this run ${run.fit.fitted.map((v) => fixed(v, 2)).join(", ")}`,
    );
    printTable(
      "The evidence in process, per set (bench/quality-fit.ts)",
      ["set", "questions", "held ≥ 0.5", "answered", "answered from another page"],
      run.fit.sets.map((r) => [r.set, String(r.n), fixed(r.held, 3), fixed(r.answered, 3), fixed(r.wrong, 3)]),
    );
  }
  if (run.xquad) printXquad(run.xquad);
  console.log(`chat latency over the ${run.docs} pages, 1 connection: p50 ${fixed(run.chatMs.p50, 1)} ms, p99 ${fixed(run.chatMs.p99, 1)} ms`);
  for (const large of run.large ?? [])
    console.log(
      `chat latency over ${large.pages} generated pages (${large.database}), 1 connection: p50 ${fixed(large.ms.p50, 1)} ms, p99 ${fixed(large.ms.p99, 1)} ms (goal < 50 ms, not asserted); recall@1 ${fixed(large.recall1, 2)}`,
    );
  await writeQualityDoc(run);
}
