// One stored evaluation run on the dashboard (src/dashboard/eval.ts): its totals beside the
// agent's previous run with the change, the questions that became right or wrong since then, and
// every question's answer, sources, confidence and verdict; run it again; export it.
import type { EvalRunDetail } from "../../agents/eval-runs.ts";
import { type Html, html } from "../../html/html.ts";
import { submit } from "../kit/fields.ts";
import { badge, listTable, when } from "../kit/table.ts";

export const percent = (share: number | null | undefined) => (share === null || share === undefined ? "—" : `${Math.round(share * 1000) / 10}%`);

/** The change of a share in percentage points, with its sign; higher is better unless `lowerIsBetter`. */
function delta(now: number | null, then: number | null | undefined, lowerIsBetter = false) {
  if (now === null || then === null || then === undefined) return html`<span class="muted">—</span>`;
  const points = Math.round((now - then) * 1000) / 10;
  if (points === 0) return html`<span class="muted">no change</span>`;
  const better = lowerIsBetter ? points < 0 : points > 0;
  return badge(`${points > 0 ? "+" : "−"}${Math.abs(points)} points`, better ? "ok" : "danger");
}

const TOTALS: [key: "recall_at_1" | "recall_at_3" | "answered" | "confidently_wrong" | "correct", label: string, lowerIsBetter: boolean][] = [
  ["recall_at_1", "Right page first (recall@1)", false],
  ["recall_at_3", "Right page in the first three (recall@3)", false],
  ["correct", "Right (page, passage or phrase)", false],
  ["answered", "Answered with confidence", false],
  ["confidently_wrong", "Answered with confidence, but wrong", true],
];

const verdict = (correct: boolean | null) =>
  correct === null ? html`<span class="muted">not judged</span>` : correct ? badge("right", "ok") : badge("wrong", "danger");
const CHANGE = { newly_right: ["newly right", "ok"], newly_wrong: ["newly wrong", "danger"], same: ["same", ""], new: ["new question", "accent"] } as const;

/** What a question expects: the page, and the passage text it must come from; else the phrase. */
function expected(r: { expected_doc?: string; expected_phrase?: string; expected_passage?: string }) {
  if (!r.expected_doc && !r.expected_passage) return r.expected_phrase ? `“${r.expected_phrase}”` : "—";
  return html`${r.expected_doc ?? ""}${r.expected_passage ? html`<div class="hint">passage holding “${r.expected_passage}”</div>` : ""}`;
}

type Result = EvalRunDetail["results"][number];

export interface EvalRunProps {
  run: EvalRunDetail;
  /** agents:manage: may run the questions again. */
  manage: boolean;
}

function Toolbar({ run, manage }: EvalRunProps): Html {
  const button = submit("Run these questions again", { busy: "Running…" });
  const again = html`<form method="post" action="/dashboard/eval/runs/${run.id}/again"><input type="hidden" name="again" value="1">${button}</form>`;
  return html`<div class="toolbar">
${manage ? again : ""}
<a class="button secondary" href="/dashboard/eval/runs/${run.id}/export?format=json" download>Export JSON</a>
<a class="button secondary" href="/dashboard/eval/runs/${run.id}/export?format=csv" download>Export CSV</a>
</div>`;
}

function totalRow(run: EvalRunDetail, [key, label, lower]: (typeof TOTALS)[number]): Html {
  const previous = run.previous;
  const then = previous ? html`<td>${percent(previous.totals[key])}</td><td>${delta(run.totals[key], previous.totals[key], lower)}</td>` : "";
  return html`<tr><th scope="row">${label}</th><td>${percent(run.totals[key])}</td>${then}</tr>`;
}

function Totals({ run }: EvalRunProps): Html {
  const previous = run.previous;
  const link = previous ? html`<a href="/dashboard/eval/runs/${previous.id}">${when(previous.created_at)}</a>` : "";
  const compared = previous
    ? html`<p class="muted">Previous run: ${link}, ${String(previous.questions)} questions.</p>`
    : html`<p class="muted">The first run of this agent: the next one is compared with it.</p>`;
  return html`<section class="panel" aria-labelledby="totals-h"><h2 id="totals-h">Totals</h2>
${listTable({
  caption: previous ? "Totals of this run beside the previous run" : "Totals of this run",
  columns: previous ? ["Figure", "This run", "Previous run", "Change"] : ["Figure", "This run"],
  rows: TOTALS,
  row: (total) => totalRow(run, total),
  empty: null,
})}
${compared}
</section>`;
}

/** The questions that became right or wrong since the previous run. */
function Changes({ results }: { results: readonly Result[] }): Html {
  const right = results.filter((r) => r.change === "newly_right");
  const wrong = results.filter((r) => r.change === "newly_wrong");
  return html`<section class="panel" aria-labelledby="changes-h"><h2 id="changes-h">Since the previous run</h2>
<p><strong>${String(right.length)}</strong> newly right · <strong>${String(wrong.length)}</strong> newly wrong</p>
${right.length > 0 ? html`<h3>Newly right</h3><ul>${right.map((r) => html`<li>${r.question}</li>`)}</ul>` : ""}
${wrong.length > 0 ? html`<h3>Newly wrong</h3><ul>${wrong.map((r) => html`<li>${r.question}</li>`)}</ul>` : ""}
</section>`;
}

function resultRow(r: Result, compared: boolean): Html {
  const sources =
    r.sources.length === 0
      ? html`<span class="muted">none</span>`
      : html`<ol>${r.sources.map((s) => html`<li><a href="/dashboard/knowledge/${s.doc_id}">${s.title}</a></li>`)}</ol>`;
  const confidence = html`${r.confidence.toFixed(2)} ${r.answered ? badge("answered", "ok") : badge("not answered", "warn")}`;
  const change = r.change ? badge(CHANGE[r.change][0], CHANGE[r.change][1]) : html`<span class="muted">—</span>`;
  const question = html`${r.question}<div class="hint">${r.reply.slice(0, 300)}</div>`;
  return html`<tr><td>${question}</td><td>${expected(r)}</td><td>${sources}</td><td>${confidence}</td><td>${verdict(r.correct)}</td>${
    compared ? html`<td>${change}</td>` : ""
  }</tr>`;
}

export function EvalRun(p: EvalRunProps): Html {
  const { run } = p;
  const previous = run.previous;
  const partial = run.status === "partial" ? html` · <span class="badge warn">partial</span> ${run.error ?? ""}` : "";
  return html`<p><a href="/dashboard/eval">← Test your agent</a></p>
<h1>Run of ${when(run.created_at)}</h1>
<p class="muted">${run.agent_name} · ${String(run.questions)} questions${partial}</p>
${Toolbar(p)}
${Totals(p)}
${previous ? Changes(run) : ""}
<section aria-labelledby="questions-h"><h2 id="questions-h">Questions</h2>
${listTable({
  caption: "Each question's answer",
  columns: ["Question", "Expected", "Sources", "Confidence", "Result", ...(previous ? ["Change"] : [])],
  rows: run.results,
  row: (r) => resultRow(r, Boolean(previous)),
  empty: "No question was answered.",
})}
</section>`;
}
