// /api/eval/runs: "Test your agent" over the API (README "Measuring answers"). A run is answered
// within its POST, under a bound (src/agents/eval-runs.ts, docs/decisions.md "Evaluation runs");
// agents:manage starts one (it spends the agent's model), agents:view reads them. A run's
// `?format=csv` is the same run as CSV. A run waits for its turn inside the POST
// (src/agents/eval-queue.ts): 429 past the member's or the org's runs in flight, 503 past the line.
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { Value } from "@sinclair/typebox/value";
import { AppError } from "../errors.ts";
import { readJsonAfterAuth } from "../http/body.ts";
import { liftIdleTimeout } from "../http/request-meta.ts";
import { issueDetails } from "../http/validation-details.ts";
import { EVAL_RUN, getRun, listRuns, runCsv, runEvaluation } from "./eval-runs.ts";

const Share = t.Union([t.Number(), t.Null()]);
const Totals = t.Object({ questions: t.Integer(), answered: Share, correct: Share, recall_at_1: Share, recall_at_3: Share, confidently_wrong: Share });
const Summary = t.Object({
  id: t.String(),
  agent_id: t.String(),
  agent_name: t.String(),
  status: t.Union([t.Literal("done"), t.Literal("partial")], {
    description: "partial: the run stopped early — its time bound, the model or an internal error (see error) — and holds the questions answered until then",
  }),
  error: t.Union([t.String(), t.Null()]),
  questions: t.Integer(),
  answered_questions: t.Integer({ description: "questions the run got to (all of them unless partial)" }),
  totals: Totals,
  created_at: t.String({ format: "date-time" }),
  finished_at: t.String({ format: "date-time" }),
});
const Result = t.Object({
  question: t.String(),
  expected_doc: t.Optional(t.String()),
  expected_phrase: t.Optional(t.String()),
  expected_passage: t.Optional(t.String()),
  reply: t.String(),
  confidence: t.Number(),
  answered: t.Boolean({ description: "confidence at or above the chat's offer threshold" }),
  sources: t.Array(t.Object({ doc_id: t.String(), title: t.String() })),
  correct: t.Union([t.Boolean(), t.Null()], { description: "null when the question expects nothing" }),
  change: t.Union([t.Literal("newly_right"), t.Literal("newly_wrong"), t.Literal("same"), t.Literal("new"), t.Null()], {
    description: "against the same question in the previous run of the same agent; null without one or when not judged",
  }),
});
const Queue = t.Object(
  {
    ahead: t.Integer({ description: "runs answering or waiting ahead of this one when it was sent (0: it started at once)" }),
    waited_ms: t.Integer({ description: "how long it waited for its turn" }),
  },
  { description: "in the answer to the POST that ran it only" },
);
const Detail = t.Composite([Summary, t.Object({ results: t.Array(Result), previous: t.Union([Summary, t.Null()]), queue: t.Optional(Queue) })]);
// At least one character that is not white space: a blank question would be answered as "".
const Text = t.String({ minLength: 1, maxLength: EVAL_RUN.chars, pattern: "\\S" });
export const EvalQuestionBody = t.Object(
  {
    question: Text,
    expected_doc: t.Optional(Text),
    expected_phrase: t.Optional(Text),
    expected_passage: t.Optional(
      t.String({
        minLength: 1,
        maxLength: EVAL_RUN.chars,
        description: "text the best passage of the answer's first source must hold (case and whitespace ignored), on top of expected_doc when given",
      }),
    ),
  },
  { additionalProperties: false },
);

const toQuestion = (q: { question: string; expected_doc?: string; expected_phrase?: string; expected_passage?: string }) => ({
  question: q.question.trim(),
  expectedDoc: q.expected_doc?.trim() || undefined,
  expectedPhrase: q.expected_phrase?.trim() || undefined,
  expectedPassage: q.expected_passage?.trim() || undefined,
});

const RunBody = t.Object(
  {
    agent_id: t.Optional(t.String({ maxLength: 64, description: "default: the org's active agent" })),
    questions: t.Array(EvalQuestionBody, { minItems: 1, maxItems: EVAL_RUN.questions }),
  },
  { additionalProperties: false },
);

export function evalRoutes(
  deps: Pick<Deps, "cipher" | "config" | "db" | "evalRuns" | "guard" | "knowledge" | "log" | "metrics" | "now" | "statements" | "timers">,
) {
  return new Elysia({ name: "eval-runs" })
    .post(
      "/api/eval/runs",
      async ({ request, set }) => {
        const { orgId, principal } = await requireMember(deps, request, "agents:manage");
        // Up to 8 MiB, so read only once the member is known (src/http/body.ts readJsonAfterAuth).
        const body = await readJsonAfterAuth(request, "/api/eval/runs");
        if (!Value.Check(RunBody, body)) throw AppError.badRequest("The question set is not valid.", issueDetails(Value.Errors(RunBody, body)).slice(0, 10));
        liftIdleTimeout(request); // a model answering 500 questions sends nothing for a while
        const run = await runEvaluation(deps, orgId, principal.member.id, body.agent_id, body.questions.map(toQuestion), request.signal);
        set.status = 201;
        return run;
      },
      {
        response: { 201: Detail },
        detail: {
          tags: ["Agents"],
          summary: "Run a question set against an agent with its current knowledge and model, store the run and compare it with the agent's previous run",
          requestBody: { required: true, content: { "application/json": { schema: RunBody } } },
        },
      },
    )
    .get(
      "/api/eval/runs",
      async ({ request, query }) => {
        const { orgId } = await requireMember(deps, request, "agents:view");
        return { runs: await listRuns(deps, orgId, query.limit ?? 20) };
      },
      {
        query: t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: EVAL_RUN.kept })) }),
        response: t.Object({ runs: t.Array(Summary) }),
        detail: { tags: ["Agents"], summary: "The org's stored evaluation runs, newest first" },
      },
    )
    .get(
      "/api/eval/runs/:id",
      async ({ request, params, query }) => {
        const { orgId } = await requireMember(deps, request, "agents:view");
        const run = await getRun(deps, orgId, params.id);
        // A Response is sent as it is (the schema below describes the JSON answer).
        if (query.format === "csv")
          return new Response(runCsv(run), {
            headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="eval-run-${run.id}.csv"` },
          }) as never;
        return run;
      },
      {
        params: t.Object({ id: t.String({ maxLength: 64 }) }),
        query: t.Object({ format: t.Optional(t.Union([t.Literal("json"), t.Literal("csv")], { description: "csv: one row per question (RFC 4180)" })) }),
        response: Detail,
        detail: {
          tags: ["Agents"],
          summary:
            "One evaluation run: per-question results, totals, " +
            "the previous run's totals and each question's change since it (?format=csv: the questions as CSV)",
        },
      },
    );
}
