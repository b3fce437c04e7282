// docs/quality.md and its charts (docs/quality/*.svg) from a quality run (bench/scenarios/quality.ts).
// Charts are vega-lite specs rendered to SVG in this process, as bench/report-doc.ts does.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { type Judged, monotoneBins, noAnswers, rawBins } from "./calibration.ts";
import type { Machine } from "./figures.ts";
import { fixed } from "./report.ts";
import { ROOT } from "./runner.ts";
import { type XquadRow, xquadSection } from "./quality-xquad.ts";
import { CHAT_REFERENCE_FILE, type ChatReference } from "./chat-reference.ts";

function chatReference(): ChatReference | undefined {
  try {
    return existsSync(CHAT_REFERENCE_FILE) ? (JSON.parse(readFileSync(CHAT_REFERENCE_FILE, "utf8")) as ChatReference) : undefined;
  } catch {
    return undefined;
  }
}

/** The answer threshold every "answered" figure uses (docs/decisions.md "Chat confidence and escalation"). */
export const ANSWERED_AT = 0.5;

export interface Scored {
  id: string;
  text: string;
  expected: string;
  /** The answer's sources, as the dataset's page ids, in order. */
  sources: string[];
  confidence: number;
  /** The baseline's best pages for the same question. */
  baseline: string[];
  /** The reply said the articles do not answer and offered a person (bench/calibration.ts). */
  noAnswer?: boolean;
}

export interface QualityRun {
  at: string;
  dataset: string;
  docs: number;
  loadS: number;
  first: Scored[];
  followups: Scored[];
  chatMs: { p50: number; p99: number; n: number };
  machine: Machine;
  /** The generated knowledge base, one entry per engine. */
  large?: LargeRun[];
  /** Questions asked of a knowledge base that cannot answer them (another corpus's pages). */
  offTopic?: { name: string; rows: Scored[] }[];
  /** XQuAD's recall@1 per language, one org per language and all in one (bench/quality-xquad.ts). */
  xquad?: XquadRow[];
  /** Each corpus's own questions, for calibration per corpus. */
  corpora?: { name: string; rows: Scored[] }[];
  /** The "held" curve: its coefficients in use and fitted again in this run (bench/quality-fit.ts), and the shares per set in process. */
  fit?: { inUse: number[]; fitted: number[]; sets: { set: string; n: number; answered: number; wrong: number; held: number }[] };
}

export interface LargeRun {
  pages: number;
  questions: number;
  ms: { p50: number; p99: number; n: number };
  recall1: number;
  database: string;
}

const share = (rows: Scored[], test: (r: Scored) => boolean) => (rows.length === 0 ? Number.NaN : rows.filter(test).length / rows.length);

export function totals(rows: Scored[]) {
  return {
    recall1: share(rows, (r) => r.sources[0] === r.expected),
    recall3: share(rows, (r) => r.sources.slice(0, 3).includes(r.expected)),
    recallAt: (k: number) => share(rows, (r) => r.sources.slice(0, k).includes(r.expected)),
    answered: share(rows, (r) => r.confidence >= ANSWERED_AT),
    wrong: share(rows, (r) => r.confidence >= ANSWERED_AT && r.sources.length > 0 && r.sources[0] !== r.expected),
    baseline1: share(rows, (r) => r.baseline[0] === r.expected),
    baseline3: share(rows, (r) => r.baseline.slice(0, 3).includes(r.expected)),
    baselineAt: (k: number) => share(rows, (r) => r.baseline.slice(0, k).includes(r.expected)),
  };
}

const judged = (rows: Scored[]): Judged[] => rows.map((r) => ({ confidence: r.confidence, right: r.sources[0] === r.expected, noAnswer: r.noAnswer ?? false }));

/** The calibration table (bench/calibration.ts): answers only, bins merged where a share would fall; then the no-answer replies apart. */
function calibrationTable(rows: Scored[]): string {
  const refused = noAnswers(judged(rows));
  return `${table(
    ["confidence", "answers", "share from the right page", "each 0.1 bin's own share"],
    monotoneBins(rawBins(judged(rows))).map((b) => [b.range, String(b.count), fixed(b.share, 2), b.own]),
  )}

No-answer replies (the articles do not answer; a person offered; kept out of the bins): ${refused.count}${
    refused.count > 0 ? `, of which the one article they named was the labelled page for ${fixed(refused.right, 2)}` : ""
  }.`;
}

async function svgOf(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  return `${svg}\n`;
}

const table = (header: string[], rows: string[][]) =>
  [`| ${header.join(" | ")} |`, `| ${header.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");

/** The sections on questions the knowledge base cannot answer, calibration per corpus and the fit (absent without XQuAD). */
function offTopicSection(run: QualityRun): string {
  if (!run.offTopic || run.offTopic.length === 0) return "";
  const perCorpus = (run.corpora ?? [])
    .map((c) => {
      const t = totals(c.rows);
      return `**${c.name}** — ${c.rows.length} questions; recall@1 ${fixed(t.recall1, 2)}, answered ${fixed(t.answered, 2)}, answered from another page ${fixed(t.wrong, 3)}.

${calibrationTable(c.rows)}`;
    })
    .join("\n\n");
  const fit = run.fit;
  return `
## What the knowledge base does not say

**Second corpus**: the English part of XQuAD's development part — Mikel Artetxe, Sebastian Ruder,
Dani Yogatama, "On the Cross-lingual Transferability of Monolingual Representations", ACL 2020
(DeepMind), licensed under [CC BY-SA 4.0](https://creativecommons.org/licenses/by-sa/4.0/): Wikipedia
paragraphs with questions written by people, read from \`../shared/eval/xquad/dev.json\` (or
\`BENCH_XQUAD_DATA\`) and never copied here.

Each corpus's questions are asked of the other corpus's pages, which cannot answer them, each in a
new session. Goal: at most 5 % answered with confidence ≥ ${ANSWERED_AT}.

${table(
  ["questions asked of pages that cannot answer them", "questions", `answered with confidence ≥ ${ANSWERED_AT}`],
  run.offTopic.map((o) => [o.name, String(o.rows.length), fixed(totals(o.rows).answered, 3)]),
)}

### Calibration per corpus

${perCorpus}
${
  fit
    ? `
### The fit

Evidence is the chance that some page answers (the "held" curve,
\`src/agents/pipeline/confidence.ts\` \`heldOf\`) times the chance that the first page is the one. The
held curve is a logistic regression of "asked of its own corpus" on the first page's coverage of the
question's rare terms and the count of the question's words no page uses, fitted by
\`bench/quality-fit.ts\` on each corpus's own questions and the other's, each set weighted alike:

| coefficient | in use | fitted in this run |
| --- | ---: | ---: |
${["intercept", "coverage", "unknown word"].map((name, i) => `| ${name} | ${fixed(fit.inUse[i]!, 2)} | ${fixed(fit.fitted[i]!, 2)} |`).join("\n")}

The same evidence computed in process for each set (no HTTP, no follow-up history beyond the
customer's turns), as the fit sees it:

${table(
  ["set", "questions", "held ≥ 0.5", `answered (≥ ${ANSWERED_AT})`, "answered from another page"],
  fit.sets.map((r) => [r.set, String(r.n), fixed(r.held, 3), fixed(r.answered, 3), fixed(r.wrong, 3)]),
)}
`
    : ""
}`;
}

export async function writeQualityDoc(run: QualityRun): Promise<void> {
  const f = totals(run.first);
  const u = totals(run.followups);
  const bins = monotoneBins(rawBins(judged([...run.first, ...run.followups])));
  const recallValues = [1, 2, 3, 4, 5]
    .flatMap((k) => [
      { k, ranking: "ours (sources of POST /api/sdk/chat)", recall: f.recallAt(k) },
      { k, ranking: "plain BM25 over whole pages", recall: k <= 3 ? f.baselineAt(k) : null },
    ])
    .filter((v) => v.recall !== null);
  const charts: Record<string, TopLevelSpec> = {
    "recall-at-k": {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: "First messages: the right page among the first k",
      width: 420,
      background: "white",
      data: { values: recallValues },
      mark: { type: "line", point: true },
      encoding: {
        x: { field: "k", type: "ordinal", title: "k" },
        y: { field: "recall", type: "quantitative", title: "recall@k", scale: { domain: [0, 1] } },
        color: { field: "ranking", type: "nominal", title: null, legend: { orient: "bottom", direction: "vertical", labelLimit: 400 } },
      },
    },
    calibration: {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: "Calibration: share of answers from the right page, by confidence (bins merged where it would fall)",
      width: 420,
      background: "white",
      data: { values: bins },
      mark: { type: "bar" },
      encoding: {
        x: { field: "range", type: "ordinal", title: "confidence", sort: null },
        y: { field: "share", type: "quantitative", title: "share from the right page", scale: { domain: [0, 1] } },
        tooltip: [{ field: "count", type: "quantitative" }],
      },
    },
  };
  const dir = join(ROOT, "docs", "quality");
  mkdirSync(dir, { recursive: true });
  for (const [name, spec] of Object.entries(charts)) writeFileSync(join(dir, `${name}.svg`), await svgOf(spec));
  const m = run.machine;
  const chat = chatReference();
  const doc = `# Answer quality

Generated by \`npm run bench -- quality\` (bench/scenarios/quality.ts) on ${run.at}. Figures only;
nothing here is asserted by the tests.

**Data**: the development part of doc2dial v1.0.1 — Song Feng, Hui Wan, Chulaka Gunasekara, Siva
Sankalp Patel, Sachindra Joshi, Luis A. Lastras, "doc2dial: A Goal-Oriented Document-Grounded
Dialogue Dataset", EMNLP 2020 (IBM Research), licensed under
[CC BY 3.0](https://creativecommons.org/licenses/by/3.0/): ${run.docs} pages of ssa.gov, va.gov, the New York DMV
and studentaid.gov, ${run.first.length} customers' first messages and ${run.followups.length} follow-ups, each labelled with the page
that answers it. The data is not part of this repository: the benchmark reads it from
\`../shared/eval/doc2dial/dev.json\` next to the repository (or \`BENCH_QUALITY_DATA\`) and skips when it is absent.

**How**: every page is created in a fresh org through \`POST /api/docs\` (title and body,
${fixed(run.loadS, 1)} s); every first message is asked in a new session through \`POST /api/sdk/chat\` with the
builtin provider; every follow-up likewise, with its earlier turns as \`conversation_history\`.
Recall@k: the labelled page among the first k of the answer's \`sources\`. Answered: confidence
≥ ${ANSWERED_AT}. Confidently wrong: confidence ≥ ${ANSWERED_AT} with another page first in \`sources\`. The baseline is
plain BM25 (k1 1.2, b 0.75, no stemming, no stop words) over whole pages (title and body), in the
same run; for follow-ups its query is the message with the earlier customer turns.

**Machine**: ${m.cpu}, ${m.cpus} CPUs, ${fixed(m.memoryGiB, 1)} GiB memory, ${m.os}, Bun ${m.bun}; 1-minute load average ${fixed(m.loadAverage, 1)} at the start.

## Results

${table(
  ["", "ours", "plain BM25, whole pages"],
  [
    ["the right page first in `sources` (recall@1)", fixed(f.recall1, 2), fixed(f.baseline1, 2)],
    ["among the first three (recall@3)", fixed(f.recall3, 2), fixed(f.baseline3, 2)],
    [`answered with confidence ≥ ${ANSWERED_AT}`, fixed(f.answered, 2), "—"],
    [`**answered with confidence ≥ ${ANSWERED_AT} from another page**`, `**${fixed(f.wrong, 2)}**`, "—"],
    ["follow-ups sent with `conversation_history` (recall@1)", fixed(u.recall1, 2), `${fixed(u.baseline1, 2)} (earlier customer turns added to the query)`],
    ["follow-ups: among the first three (recall@3)", fixed(u.recall3, 2), fixed(u.baseline3, 2)],
  ],
)}

![recall@k](quality/recall-at-k.svg)

## Calibration

First messages and follow-ups together: of the answers given at each confidence, the share whose
first source is the labelled page — what "confidence" tells a support team. A reply saying the
articles do not answer is not an answer and is counted apart (bench/calibration.ts). Bins of 0.1 are
merged where a bin's share would fall below an earlier one's (pool adjacent violators, the isotonic
fit): the data cannot tell such bins apart, and the merged row says so; each bin's own share stays
beside it. The threshold where the agent answers on its own rather than offering a person
(docs/decisions.md "Chat confidence and escalation") is read from it.

${calibrationTable([...run.first, ...run.followups])}

![calibration](quality/calibration.svg)
${offTopicSection(run)}${xquadSection(run.xquad)}
## Latency

Each question is one \`POST /api/sdk/chat\` in a new session, timed by the client over loopback: the
session and message stored, the org's index checked against its documents' version (one row read),
the lexical search, the builtin answer and the reply stored. Goal for the generated knowledge base:
p99 < 50 ms at one connection on both engines, printed and not asserted. On a machine shared with
other work (see the load average above) these figures move by several times between runs.

- The ${run.docs} pages above, one question at a time (PGlite): p50 ${fixed(run.chatMs.p50, 1)} ms, p99 ${fixed(run.chatMs.p99, 1)} ms over ${run.chatMs.n} requests.
${(run.large ?? [])
  .map(
    (large) =>
      `- A generated knowledge base of ${large.pages} pages (${large.database}), one connection, ${large.questions} questions: p50 ${fixed(large.ms.p50, 1)} ms, p99 ${fixed(large.ms.p99, 1)} ms (goal: p99 < 50 ms); the right page first for ${fixed(large.recall1 * 100, 0)} % of them.\n`,
  )
  .join("")}${
  chat
    ? `- Chat light-load p99 (\`npm run bench -- chat\` with \`BENCH_REFERENCE\`, PostgreSQL, the bench's 30 help articles, one connection), ours ÷ ${chat.reference} measured in turns in one run: ${chat.ratios.map((r) => `${fixed(r, 2)}×`).join(", ")}; median ${fixed(chat.median, 2)}× (goal ≤ 1.5×), ${chat.at}, 1-minute load average ${fixed(chat.machine.loadAverage, 1)}.\n`
    : ""
}`;
  writeFileSync(join(ROOT, "docs", "quality.md"), doc);
  console.log("\nwrote docs/quality.md and docs/quality/*.svg");
}
