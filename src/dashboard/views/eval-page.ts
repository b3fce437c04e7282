// "Test your agent" (README "Measuring answers"): "Try a question", the form running a question
// set against an agent (pasted, or read from a file by the page's script), and the runs so far.
import type { EvalRunSummary } from "../../agents/eval-runs.ts";
import { type Html, html } from "../../html/html.ts";
import { errorSummary, type FieldErrors, type FormValues, select, submit, textarea } from "../kit/fields.ts";
import { listTable, when } from "../kit/table.ts";
import { PreviewPanel, type PreviewState } from "./eval-preview.ts";
import { percent } from "./eval-run.ts";

const EXAMPLE_CSV = `question,expected_doc,expected_phrase,expected_passage
How do I reset my password?,Resetting your password,,Forgot password
"Do you ship to Canada, or the US?",,Canada,`;
const EXAMPLE = `{"question": "How do I reset my password?", "expected_doc": "Resetting your password", "expected_passage": "Forgot password"}
{"question": "Do you ship to Canada?", "expected_phrase": "Canada"}`;

export interface EvalLimits {
  questions: number;
  textChars: number;
  /** How long a run may answer, and wait for its turn, in ms; runs answering at once. */
  runMs: number;
  waitMs: number;
  running: number;
  /** A tried question's characters, and questions tried a minute. */
  previewChars: number;
  previewPerMinute: number;
}

export interface EvalPageProps {
  /** agents:manage: may try questions and start runs. */
  manage: boolean;
  agents: { value: string; label: string }[];
  /** The agent "Try a question" starts on. */
  previewAgent: string;
  preview: PreviewState | undefined;
  values: FormValues;
  errors: FieldErrors;
  runs: readonly EvalRunSummary[];
  limits: EvalLimits;
}

const EACH_RUN = html`Each run is kept, so the next one shows what changed.`;
const SEE_WHICH = html`and see which it answers from the right page.`;
const INTRO = html`Run a set of your customers' questions against an agent with its current knowledge and model, ${SEE_WHICH} ${EACH_RUN}`;

function contentHint(l: EvalLimits): string {
  const columns =
    `CSV and JSON Lines name "question" and any of "expected_doc" (a page's title or id: right when it is the first source), ` +
    `"expected_passage" (on top: right when that page's best passage holds this text) or "expected_phrase" (right when the reply contains it).`;
  const bounds =
    `Up to ${l.questions} questions and ${l.textChars.toLocaleString("en")} characters in all; a run answers for at most ${l.runMs / 60_000} minutes. ` +
    `The server answers ${l.running} runs at once and one per organisation: ` +
    `a run started meanwhile waits its turn (at most ${l.waitMs / 60_000} minutes).`;
  return `Plain lines are questions with nothing expected. ${columns} ${bounds}`;
}

const FILE_INPUT = html`<input type="file" id="f-file" name="file_name" accept=".csv,.jsonl,.json,.txt" aria-describedby="f-file-hint">`;
const FILE_HINT = html`<p class="hint" id="f-file-hint">A .csv, .jsonl or .txt file; its text fills the box below.</p>`;
const FILE_FIELD = html`<div class="field"><label for="f-file">Question file (optional)</label>${FILE_INPUT}${FILE_HINT}</div>`;

function RunForm({ agents, values, errors, limits }: EvalPageProps): Html {
  const examples = html`<p>CSV:</p><pre><code>${EXAMPLE_CSV}</code></pre><p>JSON Lines:</p><pre><code>${EXAMPLE}</code></pre>`;
  return html`<section class="panel" aria-labelledby="run-h"><h2 id="run-h">Run a question set</h2>
${errorSummary(errors)}
<form method="post" action="/dashboard/eval" novalidate data-file-import>
${select({ name: "agent_id", label: "Agent", value: values.agent_id ?? "", error: errors.agent_id, options: agents })}
${FILE_FIELD}
${textarea({
  name: "content",
  label: "Questions: one a line, CSV with a header, or JSON Lines",
  value: values.content ?? "",
  error: errors.content,
  rows: 8,
  hint: contentHint(limits),
})}
<details><summary>Examples</summary>${examples}</details>
<div class="actions">${submit("Run the questions", { busy: "Running…" })}</div>
</form></section>`;
}

function runRow(r: EvalRunSummary): Html {
  const partial = r.status === "partial" ? html` <span class="badge warn">partial</span>` : "";
  const run = html`<a href="/dashboard/eval/runs/${r.id}">${when(r.created_at)}</a>${partial}`;
  const recall = html`<td>${percent(r.totals.recall_at_1)}</td><td>${percent(r.totals.recall_at_3)}</td>`;
  const answered = html`<td>${percent(r.totals.answered)}</td><td>${percent(r.totals.confidently_wrong)}</td>`;
  return html`<tr><td>${run}</td><td>${r.agent_name}</td><td>${String(r.questions)}</td>${recall}${answered}</tr>`;
}

export function EvalPage(p: EvalPageProps): Html {
  const preview = PreviewPanel({
    agents: p.agents,
    defaultAgent: p.previewAgent,
    state: p.preview,
    limits: { chars: p.limits.previewChars, perMinute: p.limits.previewPerMinute },
  });
  return html`<p><a href="/dashboard/agents">← Agents</a></p>
<h1>Test your agent</h1>
<p class="muted">${INTRO}</p>
${p.manage ? preview : ""}
${p.manage ? RunForm(p) : ""}
<section aria-labelledby="runs-h"><h2 id="runs-h">Runs</h2>
${listTable({
  caption: "Runs, newest first",
  columns: ["Run", "Agent", "Questions", "Right page first", "In the first three", "Answered", "Confidently wrong"],
  rows: p.runs,
  row: runRow,
  empty: "No runs yet.",
})}
</section>`;
}
