// "Try a question" (README "Measuring answers"): one question answered by one of the org's agents
// as a first chat message would be — through src/agents/evaluate.ts `answerQuestion`, so nothing is
// stored as a conversation and no tool is called — with why it was answered so: the passage it came
// from and the reasons of the ranking (src/agents/pipeline/explain.ts). It may spend the agent's
// model, so it is limited per member (deps.limiter; docs/decisions.md "Try a question").
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { EVAL_LIMITS, answerQuestion, evalTarget } from "./evaluate.ts";
import { explainRetrieval, type RetrievalExplanation } from "./pipeline/explain.ts";

export const EVAL_PREVIEW = {
  /** Questions a member may try a minute. */
  perMinute: 20,
  /** Characters of a question (as in a run). */
  chars: EVAL_LIMITS.chars,
} as const;

export interface Preview {
  agent_id: string;
  agent_name: string;
  question: string;
  reply: string;
  confidence: number;
  answered: boolean;
  sources: { doc_id: string; title: string }[];
  /** The best passage of the answer's first source: the text it came from. */
  passage: { doc_id: string; title: string; text: string } | null;
  reasons: RetrievalExplanation;
}

/** The member's question answered and explained; 429 past EVAL_PREVIEW.perMinute, 404 for an agent not of the org. */
export async function previewQuestion(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "knowledge" | "limiter" | "log" | "metrics" | "now" | "statements" | "timers">,
  orgId: string,
  memberId: string,
  agentId: string | undefined,
  question: string,
  signal?: AbortSignal,
): Promise<Preview> {
  const text = question.trim();
  if (text === "" || text.length > EVAL_PREVIEW.chars)
    throw AppError.badRequest(`A question has 1 to ${EVAL_PREVIEW.chars} characters.`, [
      { path: "/question", message: `1 to ${EVAL_PREVIEW.chars} characters` },
    ]);
  const taken = await deps.limiter.take(`eval-preview:${memberId}`, { limit: EVAL_PREVIEW.perMinute, windowSeconds: 60 }, deps.now());
  if (!taken.allowed)
    throw AppError.tooManyRequests(taken.retryAfter, `At most ${EVAL_PREVIEW.perMinute} questions a minute; try again in ${taken.retryAfter} seconds.`);
  const target = await evalTarget(deps, orgId, agentId);
  const stop = AbortSignal.any([AbortSignal.timeout(120_000), ...(signal ? [signal] : [])]);
  const { result, used } = await answerQuestion(deps, orgId, target, { question: text }, stop);
  const first = used[0];
  return {
    agent_id: target.agent.id,
    agent_name: target.agent.name,
    question: text,
    reply: result.reply,
    confidence: result.confidence,
    answered: result.answered,
    sources: result.sources,
    passage: first ? { doc_id: first.docId, title: first.title, text: first.text } : null,
    reasons: await explainRetrieval(deps, orgId, text),
  };
}
