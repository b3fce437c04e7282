// Dashboard: "Test your agent" (README "Measuring answers"). One question tried in place with why
// (src/dashboard/eval-preview.ts); a question set — plain lines, CSV or JSON Lines
// (src/agents/question-set.ts) — pasted or read from a file by the page's script, is run against
// a chosen agent through src/agents/eval-runs.ts as
// POST /api/eval/runs does; the run's page compares it with the agent's previous run and exports
// it. agents:view reads runs, agents:manage starts them. Works as plain form posts.
import { Value } from "@sinclair/typebox/value";
import { Elysia, t } from "elysia";
import { EVAL_PREVIEW } from "../agents/eval-preview.ts";
import { EVAL_QUEUE } from "../agents/eval-queue.ts";
import { EVAL_RUN, type EvalRunDetail, getRun, listRuns, runCsv, runEvaluation, runQuestions } from "../agents/eval-runs.ts";
import type { EvalQuestion } from "../agents/evaluate.ts";
import { parseQuestionSet } from "../agents/question-set.ts";
import { listAgents } from "../agents/service.ts";
import { AppError } from "../errors.ts";
import { readFormAfterAuth } from "../http/body.ts";
import { liftIdleTimeout } from "../http/request-meta.ts";
import { issueDetails } from "../http/validation-details.ts";
import {
  type DashboardContext,
  type DashboardDeps,
  formBody,
  formValues,
  type FormValues,
  IdParams,
  redirect,
  type Refused,
  shellPage,
  submitForm,
  withMember,
} from "./kit/index.ts";
import { tryQuestion } from "./eval-preview.ts";
import { type EvalLimits, EvalPage } from "./views/eval-page.ts";
import type { PreviewState } from "./views/eval-preview.ts";
import { EvalRun } from "./views/eval-run.ts";

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
  const body = EvalPage({
    manage,
    agents: agentOptions,
    previewAgent: active?.id ?? usable[0]?.id ?? "",
    preview,
    values,
    errors,
    runs,
    limits: EVAL_LIMITS,
  });
  return shellPage(ctx, { title: "Test your agent", active: "agents", body, status: refused?.status ?? preview?.status ?? 200 });
}

/** The page's limits, said in its hints. */
const EVAL_LIMITS: EvalLimits = {
  questions: EVAL_RUN.questions,
  textChars: EVAL_RUN.textChars,
  runMs: EVAL_RUN.ms,
  waitMs: EVAL_QUEUE.waitMs,
  running: EVAL_QUEUE.running,
  previewChars: EVAL_PREVIEW.chars,
  previewPerMinute: EVAL_PREVIEW.perMinute,
};

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

/** One stored run (views/eval-run.ts). */
function runPage(ctx: DashboardContext, run: EvalRunDetail): Response {
  return shellPage(ctx, { title: "Evaluation run", active: "agents", body: EvalRun({ run, manage: ctx.can("agents:manage") }) });
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

export function evalPages(deps: DashboardDeps) {
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
