// Dashboard: "Test your agent" (README "Measuring answers"). One question tried in place with why
// (src/dashboard/eval-preview.ts); a question set — plain lines, CSV or JSON Lines
// (src/agents/question-set.ts) — pasted or read from a file by the page's script, is run against a chosen agent through src/agents/eval-runs.ts as
// POST /api/eval/runs does; the run's page compares it with the agent's previous run and exports
// it. agents:view reads runs, agents:manage starts them. Works as plain form posts.
import { Value } from "@sinclair/typebox/value";
import { Elysia, t } from "elysia";
import { EVAL_QUEUE } from "../agents/eval-queue.ts";
import { EVAL_RUN, type EvalRunDetail, getRun, listRuns, runCsv, runEvaluation, runQuestions } from "../agents/eval-runs.ts";
import type { EvalQuestion } from "../agents/evaluate.ts";
import { parseQuestionSet } from "../agents/question-set.ts";
import { listAgents } from "../agents/service.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { html } from "../html/html.ts";
import { readFormAfterAuth } from "../http/body.ts";
import { liftIdleTimeout } from "../http/request-meta.ts";
import { issueDetails } from "../http/validation-details.ts";
import {
  type DashboardContext,
  errorSummary,
  formBody,
  formValues,
  type FormValues,
  IdParams,
  listTable,
  redirect,
  type Refused,
  select,
  shellPage,
  submit,
  submitForm,
  textarea,
  when,
  withMember,
} from "./kit/index.ts";
import { percent, runPage } from "./eval-run.ts";
import { type PreviewState, previewPanel, tryQuestion } from "./eval-preview.ts";

const EXAMPLE_CSV = `question,expected_doc,expected_phrase,expected_passage
How do I reset my password?,Resetting your password,,Forgot password
"Do you ship to Canada, or the US?",,Canada,`;
const EXAMPLE = `{"question": "How do I reset my password?", "expected_doc": "Resetting your password", "expected_passage": "Forgot password"}
{"question": "Do you ship to Canada?", "expected_phrase": "Canada"}`;

const asLines = (questions: readonly { question: string; expected_doc?: string; expected_phrase?: string; expected_passage?: string }[]) =>
  questions.map((q) => JSON.stringify(q)).join("\n");

async function evalPage(ctx: DashboardContext, refused?: Refused, preview?: PreviewState): Promise<Response> {
  const manage = ctx.can("agents:manage");
  const [runs, agents] = await Promise.all([listRuns(ctx.deps, ctx.orgId, 20), listAgents(ctx.deps, ctx.orgId)]);
  const usable = agents.filter((a) => a.status !== "disabled");
  const active = usable.find((a) => a.status === "active");
  // The last run's questions, so running the same set again is one click.
  const last = runs[0] ? await runQuestions(ctx.deps, ctx.orgId, runs[0].id) : null;
  const values = refused?.values ?? {
    agent_id: last?.agentId ?? active?.id ?? "",
    content: last ? asLines(last.questions) : "",
  };
  const errors = refused?.errors ?? {};
  const agentOptions = usable.map((a) => ({ value: a.id, label: a.status === "active" ? `${a.name} (active)` : a.name }));
  const body = html`<p><a href="/dashboard/agents">← Agents</a></p>
<h1>Test your agent</h1>
<p class="muted">Run a set of your customers' questions against an agent with its current knowledge and model, and see which it answers from the right page. Each run is kept, so the next one shows what changed.</p>
${manage ? previewPanel(agentOptions, active?.id ?? usable[0]?.id ?? "", preview) : ""}
${
  manage
    ? html`<section class="panel" aria-labelledby="run-h"><h2 id="run-h">Run a question set</h2>
${errorSummary(errors)}
<form method="post" action="/dashboard/eval" novalidate data-file-import>
${select({ name: "agent_id", label: "Agent", value: values.agent_id ?? "", error: errors.agent_id, options: agentOptions })}
<div class="field"><label for="f-file">Question file (optional)</label><input type="file" id="f-file" name="file_name" accept=".csv,.jsonl,.json,.txt" aria-describedby="f-file-hint"><p class="hint" id="f-file-hint">A .csv, .jsonl or .txt file; its text fills the box below.</p></div>
${textarea({ name: "content", label: "Questions: one a line, CSV with a header, or JSON Lines", value: values.content ?? "", error: errors.content, rows: 8, hint: `Plain lines are questions with nothing expected. CSV and JSON Lines name "question" and any of "expected_doc" (a page's title or id: right when it is the first source), "expected_passage" (on top: right when that page's best passage holds this text) or "expected_phrase" (right when the reply contains it). Up to ${EVAL_RUN.questions} questions and ${EVAL_RUN.textChars.toLocaleString("en")} characters in all; a run answers for at most ${EVAL_RUN.ms / 60_000} minutes. The server answers ${EVAL_QUEUE.running} runs at once and one per organisation: a run started meanwhile waits its turn (at most ${EVAL_QUEUE.waitMs / 60_000} minutes).` })}
<details><summary>Examples</summary><p>CSV:</p><pre><code>${EXAMPLE_CSV}</code></pre><p>JSON Lines:</p><pre><code>${EXAMPLE}</code></pre></details>
<div class="actions">${submit("Run the questions", { busy: "Running…" })}</div>
</form></section>`
    : ""
}
<section aria-labelledby="runs-h"><h2 id="runs-h">Runs</h2>
${listTable({
  caption: "Runs, newest first",
  columns: ["Run", "Agent", "Questions", "Right page first", "In the first three", "Answered", "Confidently wrong"],
  rows: runs,
  row: (r) =>
    html`<tr><td><a href="/dashboard/eval/runs/${r.id}">${when(r.created_at)}</a>${r.status === "partial" ? html` <span class="badge warn">partial</span>` : ""}</td><td>${r.agent_name}</td><td>${String(r.questions)}</td><td>${percent(r.totals.recall_at_1)}</td><td>${percent(r.totals.recall_at_3)}</td><td>${percent(r.totals.answered)}</td><td>${percent(r.totals.confidently_wrong)}</td></tr>`,
  empty: "No runs yet.",
})}
</section>`;
  return shellPage(ctx, { title: "Test your agent", active: "agents", body, status: refused?.status ?? preview?.status ?? 200 });
}

function startRun(ctx: DashboardContext, values: FormValues): Promise<Response> {
  liftIdleTimeout(ctx.request); // a model answering many questions sends nothing for a while
  return submitForm({
    values,
    validate: (v) => {
      let questions: EvalQuestion[] = [];
      const errors: Record<string, string> = {};
      try {
        questions = parseQuestionSet(v.content ?? "", v.file_name).questions;
        if (questions.length > EVAL_RUN.questions) errors.content = `A run has at most ${EVAL_RUN.questions} questions; this set has ${questions.length}.`;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        errors.content = (error.details ?? []).map((d) => (d.path === "/" ? d.message : `Line ${d.path.slice(1)}: ${d.message}`)).join("; ") || error.message;
      }
      return { input: questions, errors };
    },
    call: (questions) => runEvaluation(ctx.deps, ctx.orgId, ctx.principal.member.id, values.agent_id || undefined, questions, ctx.request.signal),
    done: (run) => finished(ctx, run),
    render: (refused) => evalPage(ctx, refused),
    refused: (error): Record<string, string> => (error.status === 404 ? { agent_id: error.message } : { content: error.message }),
  });
}

async function rerun(ctx: DashboardContext, id: string): Promise<Response> {
  liftIdleTimeout(ctx.request);
  const before = await runQuestions(ctx.deps, ctx.orgId, id);
  const questions = before.questions.map((q) => ({
    question: q.question,
    expectedDoc: q.expected_doc,
    expectedPhrase: q.expected_phrase,
    expectedPassage: q.expected_passage,
  }));
  const run = await runEvaluation(ctx.deps, ctx.orgId, ctx.principal.member.id, before.agentId, questions, ctx.request.signal);
  return finished(ctx, run);
}

/** The run's page, with a flash saying how it ended and whether it waited for its turn. */
function finished(ctx: DashboardContext, run: EvalRunDetail): Response {
  const waited =
    run.queue && run.queue.ahead > 0
      ? ` It waited ${Math.round(run.queue.waited_ms / 1000)} s for its turn behind ${run.queue.ahead} other ${run.queue.ahead === 1 ? "run" : "runs"}.`
      : "";
  return redirect(
    ctx.deps,
    `/dashboard/eval/runs/${run.id}`,
    run.status === "partial"
      ? { kind: "error", text: `${run.error ?? "The run stopped early."}${waited}` }
      : `Run finished: ${run.questions} questions.${waited}`,
  );
}

async function exportRun(ctx: DashboardContext, id: string, format: string | undefined): Promise<Response> {
  const run = await getRun(ctx.deps, ctx.orgId, id);
  const name = `eval-run-${run.id}.${format === "csv" ? "csv" : "json"}`;
  const disposition = `attachment; filename="${name}"`;
  if (format === "csv")
    return new Response(runCsv(run), {
      headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": disposition, "cache-control": "no-store" },
    });
  return new Response(JSON.stringify(run, null, 2), {
    headers: { "content-type": "application/json; charset=utf-8", "content-disposition": disposition, "cache-control": "no-store" },
  });
}

/** Room for EVAL_RUN.questions lines of the longest questions and expectations. */
const FormBody = formBody({ text: EVAL_RUN.questions * (3 * EVAL_RUN.chars + 80), items: 4 });

export function evalPages(deps: Deps) {
  return (
    new Elysia({ name: "dashboard-eval" })
      .get("/dashboard/eval", ({ request }) => withMember(deps, request, "agents:view", (ctx) => evalPage(ctx)))
      // Up to 8 MiB, so the form is read only once the member is known (src/http/body.ts readFormAfterAuth).
      .post("/dashboard/eval", ({ request }) =>
        withMember(deps, request, "agents:manage", async (ctx) => {
          const body = await readFormAfterAuth(request, "/dashboard/eval");
          if (!Value.Check(FormBody, body)) throw AppError.badRequest("The form is not valid.", issueDetails(Value.Errors(FormBody, body)).slice(0, 10));
          return startRun(ctx, formValues(body));
        }),
      )
      .post(
        "/dashboard/eval/preview",
        ({ request, body }) => withMember(deps, request, "agents:manage", async (ctx) => evalPage(ctx, undefined, await tryQuestion(ctx, formValues(body)))),
        { body: formBody({ text: EVAL_RUN.chars * 9, items: 4 }) },
      )
      .get(
        "/dashboard/eval/runs/:id",
        ({ request, params }) => withMember(deps, request, "agents:view", async (ctx) => runPage(ctx, await getRun(deps, ctx.orgId, params.id))),
        { params: IdParams },
      )
      .post("/dashboard/eval/runs/:id/again", ({ request, params }) => withMember(deps, request, "agents:manage", (ctx) => rerun(ctx, params.id)), {
        params: IdParams,
        body: formBody({ text: 10, items: 2 }),
      })
      .get(
        "/dashboard/eval/runs/:id/export",
        ({ request, params, query }) => withMember(deps, request, "agents:view", (ctx) => exportRun(ctx, params.id, query.format)),
        {
          params: IdParams,
          query: t.Object({ format: t.Optional(t.Union([t.Literal("json"), t.Literal("csv")])) }),
        },
      )
  );
}
