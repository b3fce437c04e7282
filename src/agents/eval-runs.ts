// Stored evaluation runs ("Test your agent", README "Measuring answers"): a question set — the
// format of `svc-agents eval --questions` (src/agents/evaluate.ts) — run against one of the org's
// agents with its current knowledge and model, kept with its per-question results and totals so a
// run can be compared with the one before it (the same agent's previous finished run).
//
// A run is answered within its request, under a bound (docs/decisions.md "Evaluation runs"): the
// questions are answered in order until EVAL_RUN.ms has passed; a question still being answered
// then is stopped, and the run is stored as `partial` with the questions answered so far (so is a
// run whose model fails, or that meets an internal error: the error says so). The
// bound keeps a run's cost to its caller's request and leaves nothing running behind it. A run
// waits for its turn first (src/agents/eval-queue.ts), its text is bounded (EVAL_RUN.textChars),
// and it lets the event loop serve other requests between questions.
import { and, desc, eq, sql } from "drizzle-orm";
import { evalRuns } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { csvDocument } from "../kit/csv.ts";
import { isUuid } from "../kit/ids.ts";
import { takeTurn } from "./eval-queue.ts";
import { LlmError } from "./llm/errors.ts";
import { type EvalQuestion, type EvalResult, evalTarget, evaluateOne, type EvalTotals, totalsOf, yieldToLoop } from "./evaluate.ts";

export const EVAL_RUN = {
  /** Questions in one run, and characters of a question or an expectation. */
  questions: 500,
  chars: 4000,
  /** Characters of a run's questions and expectations together: the work one run may ask for. */
  textChars: 200_000,
  /** How long a run may answer, in all. */
  ms: 5 * 60_000,
  /** Runs kept per org (the oldest are deleted past this). */
  kept: 100,
} as const;

export type RunStatus = "done" | "partial";

export interface EvalRunSummary {
  id: string;
  agent_id: string;
  agent_name: string;
  status: RunStatus;
  error: string | null;
  questions: number;
  answered_questions: number;
  totals: EvalTotals;
  created_at: string;
  finished_at: string;
}

export type QuestionChange = "newly_right" | "newly_wrong" | "same" | "new";

export interface EvalRunDetail extends EvalRunSummary {
  results: (EvalResult & { expected_doc?: string; expected_phrase?: string; expected_passage?: string; change: QuestionChange | null })[];
  previous: EvalRunSummary | null;
  /** In the answer to the request that ran it only: how long it waited for its turn, behind how many runs. */
  queue?: { ahead: number; waited_ms: number };
}

type Row = typeof evalRuns.$inferSelect;

function summaryOf(row: Row): EvalRunSummary {
  return {
    id: row.id,
    agent_id: row.agentId,
    agent_name: row.agentName,
    status: row.status,
    error: row.error,
    questions: row.questionCount,
    answered_questions: row.doneCount,
    totals: row.totals as EvalTotals,
    created_at: row.createdAt.toISOString(),
    finished_at: (row.finishedAt ?? row.createdAt).toISOString(),
  };
}

const asInput = (q: EvalQuestion) => ({
  question: q.question,
  ...(q.expectedDoc ? { expected_doc: q.expectedDoc } : {}),
  ...(q.expectedPhrase ? { expected_phrase: q.expectedPhrase } : {}),
  ...(q.expectedPassage ? { expected_passage: q.expectedPassage } : {}),
});
const asQuestion = (q: { question: string; expected_doc?: string; expected_phrase?: string; expected_passage?: string }): EvalQuestion => ({
  question: q.question,
  expectedDoc: q.expected_doc,
  expectedPhrase: q.expected_phrase,
  expectedPassage: q.expected_passage,
});

const textOf = (q: EvalQuestion) => q.question.length + (q.expectedDoc?.length ?? 0) + (q.expectedPhrase?.length ?? 0) + (q.expectedPassage?.length ?? 0);

/** Runs the set against the agent (the org's active one when `agentId` is absent) and stores the run. */
export async function runEvaluation(
  deps: Deps,
  orgId: string,
  memberId: string | null,
  agentId: string | undefined,
  questions: readonly EvalQuestion[],
  signal?: AbortSignal,
): Promise<EvalRunDetail> {
  if (questions.length === 0 || questions.length > EVAL_RUN.questions)
    throw AppError.badRequest(`A run has 1 to ${EVAL_RUN.questions} questions.`, [{ path: "/questions", message: `1 to ${EVAL_RUN.questions} questions` }]);
  const text = questions.reduce((n, q) => n + textOf(q), 0);
  if (text > EVAL_RUN.textChars)
    throw AppError.badRequest(`A run's questions and expectations hold at most ${EVAL_RUN.textChars} characters in all; this set has ${text}.`, [
      { path: "/questions", message: `at most ${EVAL_RUN.textChars} characters in all` },
    ]);
  const target = await evalTarget(deps, orgId, agentId);
  const turn = await takeTurn(deps, orgId, memberId, signal);
  try {
    const row = await answerAndStore(deps, orgId, memberId, target, questions, signal);
    return { ...(await detailOf(deps, row)), queue: { ahead: turn.ahead, waited_ms: turn.waitedMs } };
  } finally {
    turn.release();
  }
}

async function answerAndStore(
  deps: Deps,
  orgId: string,
  memberId: string | null,
  target: Awaited<ReturnType<typeof evalTarget>>,
  questions: readonly EvalQuestion[],
  signal?: AbortSignal,
): Promise<Row> {
  const createdAt = deps.now();
  const bound = deps.timers.deadline(EVAL_RUN.ms);
  const stop = signal ? AbortSignal.any([bound, signal]) : bound;
  const results: EvalResult[] = [];
  // Why the run stopped early, if it did: its bound, its request gone, the model failing, or an
  // internal error (the database, retrieval), which the server's log describes.
  let failed: string | null = null;
  for (const q of questions) {
    if (stop.aborted) break;
    try {
      results.push(await evaluateOne(deps, orgId, target, q, AbortSignal.any([stop, AbortSignal.timeout(120_000)])));
    } catch (e) {
      if (stop.aborted) break;
      if (e instanceof LlmError) failed = `the model failed (${e.message})`;
      else {
        deps.log.error("evaluation run stopped by an internal error", { error: e });
        failed = "an internal error stopped it (the server's log has the details)";
      }
      break;
    }
    await yieldToLoop();
  }
  const reason = bound.aborted ? `a run answers for at most ${EVAL_RUN.ms / 60_000} minutes` : stop.aborted ? "the request was cancelled" : failed;
  const error = results.length < questions.length ? `Stopped after ${results.length} of ${questions.length} questions: ${reason}.` : null;
  const [row] = await deps.db
    .insert(evalRuns)
    .values({
      orgId,
      agentId: target.agent.id,
      agentName: target.agent.name,
      memberId,
      status: error ? "partial" : "done",
      error,
      questions: questions.map(asInput),
      questionCount: questions.length,
      doneCount: results.length,
      results,
      totals: totalsOf(results, questions),
      createdAt,
      finishedAt: deps.now(),
    })
    .returning();
  // Keep the newest EVAL_RUN.kept runs of the org.
  await deps.db.execute(
    sql`delete from eval_runs where org_id = ${orgId} and id not in (select id from eval_runs where org_id = ${orgId} order by recorded_at desc, id desc limit ${EVAL_RUN.kept})`,
  );
  return row!;
}

/** The org's runs, newest first. */
export async function listRuns(deps: Pick<Deps, "db">, orgId: string, limit: number): Promise<EvalRunSummary[]> {
  const rows = await deps.db.select().from(evalRuns).where(eq(evalRuns.orgId, orgId)).orderBy(desc(evalRuns.recordedAt), desc(evalRuns.id)).limit(limit);
  return rows.map(summaryOf);
}

/** One run of the org with its results, each compared with the same question in the previous run; 404 for another org's or an unknown id. */
export async function getRun(deps: Pick<Deps, "db">, orgId: string, id: string): Promise<EvalRunDetail> {
  const [row] = isUuid(id)
    ? await deps.db
        .select()
        .from(evalRuns)
        .where(and(eq(evalRuns.orgId, orgId), eq(evalRuns.id, id)))
        .limit(1)
    : [];
  if (!row) throw AppError.notFound("No such run in this organisation.");
  return detailOf(deps, row);
}

/**
 * The question set a run was given, whole — also the questions a run that stopped early never
 * reached (its results hold only those it answered) — and its agent: what "run again" asks.
 */
export async function runQuestions(
  deps: Pick<Deps, "db">,
  orgId: string,
  id: string,
): Promise<{ agentId: string; questions: { question: string; expected_doc?: string; expected_phrase?: string; expected_passage?: string }[] }> {
  const [row] = isUuid(id)
    ? await deps.db
        .select({ agentId: evalRuns.agentId, questions: evalRuns.questions })
        .from(evalRuns)
        .where(and(eq(evalRuns.orgId, orgId), eq(evalRuns.id, id)))
        .limit(1)
    : [];
  if (!row) throw AppError.notFound("No such run in this organisation.");
  return row;
}

const key = (question: string) => question.trim().toLowerCase().replace(/\s+/g, " ");

/** The run with the agent's previous run (the newest one before it) and each question's change since then. */
async function detailOf(deps: Pick<Deps, "db">, row: Row): Promise<EvalRunDetail> {
  const [previous] = await deps.db
    .select()
    .from(evalRuns)
    // Compared in the database: recorded_at has microseconds, a JavaScript Date only milliseconds.
    .where(
      and(
        eq(evalRuns.orgId, row.orgId),
        eq(evalRuns.agentId, row.agentId),
        sql`(${evalRuns.recordedAt}, ${evalRuns.id}) < (select r.recorded_at, r.id from eval_runs r where r.id = ${row.id})`,
      ),
    )
    .orderBy(desc(evalRuns.recordedAt), desc(evalRuns.id))
    .limit(1);
  const before = new Map<string, boolean | null>();
  for (const r of (previous?.results ?? []) as EvalResult[]) before.set(key(r.question), r.correct);
  const inputs = row.questions.map(asQuestion);
  const results = ((row.results ?? []) as EvalResult[]).map((r, i) => {
    const then = before.get(key(r.question));
    const change: QuestionChange | null =
      !previous || r.correct === null
        ? null
        : then === undefined || then === null
          ? "new"
          : then === r.correct
            ? "same"
            : r.correct
              ? "newly_right"
              : "newly_wrong";
    return {
      ...r,
      ...(inputs[i]?.expectedDoc ? { expected_doc: inputs[i]!.expectedDoc } : {}),
      ...(inputs[i]?.expectedPhrase ? { expected_phrase: inputs[i]!.expectedPhrase } : {}),
      ...(inputs[i]?.expectedPassage ? { expected_passage: inputs[i]!.expectedPassage } : {}),
      change,
    };
  });
  return { ...summaryOf(row), results, previous: previous ? summaryOf(previous) : null };
}

/** The run's questions as CSV (RFC 4180, through src/kit/csv.ts): one row per question answered. */
export function runCsv(run: EvalRunDetail): string {
  const head = [
    "question",
    "expected_doc",
    "expected_phrase",
    "expected_passage",
    "answered",
    "confidence",
    "correct",
    "change",
    "first_source",
    "sources",
    "reply",
  ];
  const rows = run.results.map((r) => [
    r.question,
    r.expected_doc,
    r.expected_phrase,
    r.expected_passage,
    r.answered,
    r.confidence,
    r.correct,
    r.change,
    r.sources[0]?.title,
    r.sources.map((s) => s.title).join(" | "),
    r.reply,
  ]);
  return csvDocument([head, ...rows]);
}
