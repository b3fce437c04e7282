// `svc-agents eval`: a team's own question set run against one of its agents, with its current
// knowledge and model (README "Measuring answers"). Each question is answered as a first chat
// message would be — knowledge, the agent's provider, confidence, sources — without storing a
// conversation or calling tools, and judged against what the file expects.
//
// The file is JSON Lines, one question per line:
//   {"question": "How do I reset my password?", "expected_doc": "<doc id or title>"}
//   {"question": "Do you ship to Canada?", "expected_phrase": "Canada"}
// `expected_doc` is right when the answer's first source is that document; `expected_passage` (with
// or without `expected_doc`) when, on top, the best passage of that first source holds the text (case
// and whitespace ignored); `expected_phrase`, when neither is given, when the reply contains the
// phrase (case ignored); with none, the question is counted but not judged. The other formats of a
// question set (plain lines, CSV) are read by src/agents/question-set.ts.
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import { providerFor } from "./llm/provider.ts";
import { answer } from "./pipeline/answer.ts";
import { CONFIDENCE, confidenceOf } from "./pipeline/confidence.ts";
import { retrieve, type ScoredPassage, usedPassages } from "./pipeline/knowledge.ts";
import { conversationMessages, systemText } from "./pipeline/prompt.ts";
import { getAgent } from "./service.ts";

export const EVAL_LIMITS = { questions: 1000, chars: 4000 } as const;

export interface EvalQuestion {
  question: string;
  expectedDoc?: string;
  expectedPhrase?: string;
  /** Text the answer's best passage (that of its first source) must hold. */
  expectedPassage?: string;
}

export interface EvalResult {
  question: string;
  reply: string;
  confidence: number;
  answered: boolean;
  sources: { doc_id: string; title: string }[];
  /** null when the line expects nothing. */
  correct: boolean | null;
}

/** The questions of a JSON Lines file; 400 naming the line of the first problems. */
export function parseQuestions(text: string): EvalQuestion[] {
  const lines = text
    .split(/\r?\n/)
    .map((l, i) => ({ l: l.trim(), n: i + 1 }))
    .filter(({ l }) => l !== "");
  const details: ErrorDetail[] = [];
  if (lines.length === 0) details.push({ path: "/", message: "no questions" });
  if (lines.length > EVAL_LIMITS.questions) details.push({ path: "/", message: `at most ${EVAL_LIMITS.questions} questions` });
  const out: EvalQuestion[] = [];
  for (const { l, n } of lines.slice(0, EVAL_LIMITS.questions)) {
    let value: unknown;
    try {
      value = JSON.parse(l);
    } catch {
      details.push({ path: `/${n}`, message: "not a JSON object" });
      continue;
    }
    const v = value as Record<string, unknown>;
    const text = (k: string) => (typeof v[k] === "string" && (v[k] as string).trim() !== "" ? (v[k] as string).trim() : undefined);
    if (!v || typeof v !== "object" || Array.isArray(v) || !text("question")) details.push({ path: `/${n}`, message: 'needs a non-empty "question"' });
    else if ([text("question"), text("expected_doc"), text("expected_phrase"), text("expected_passage")].some((s) => (s?.length ?? 0) > EVAL_LIMITS.chars))
      details.push({ path: `/${n}`, message: `at most ${EVAL_LIMITS.chars} characters a field` });
    else
      out.push({
        question: text("question")!,
        expectedDoc: text("expected_doc"),
        expectedPhrase: text("expected_phrase"),
        expectedPassage: text("expected_passage"),
      });
  }
  if (details.length > 0) throw AppError.badRequest("The question file is invalid.", details.slice(0, 20));
  return out;
}

/** The agent a set is run against (the org's active one by default) and its provider; 404 when there is none. */
export async function evalTarget(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "log" | "metrics" | "statements" | "timers">,
  orgId: string,
  agentId: string | undefined,
) {
  const agent = await getAgent(deps, orgId, agentId);
  if (!agent) throw AppError.notFound(agentId ? "No such agent in this organisation." : "The organisation has no active agent.");
  return { agent, provider: await providerFor(deps, orgId, agent) };
}

/** Text compared with case and runs of whitespace ignored (an expected passage against a passage). */
const loose = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim();

/**
 * Whether an answer is right: from the expected page first and, when an expected passage is given,
 * with that page's best passage holding it; by the expected phrase only when neither is given.
 */
export function judge(q: EvalQuestion, reply: string, first: { doc_id: string; title: string; text: string } | undefined): boolean | null {
  if (q.expectedDoc === undefined && q.expectedPassage === undefined)
    return q.expectedPhrase !== undefined ? reply.toLowerCase().includes(q.expectedPhrase.toLowerCase()) : null;
  if (first === undefined) return false;
  const page = q.expectedDoc === undefined || first.doc_id === q.expectedDoc || first.title.toLowerCase() === q.expectedDoc.toLowerCase();
  return page && (q.expectedPassage === undefined || loose(first.text).includes(loose(q.expectedPassage)));
}

/**
 * One question answered as a first chat message would be — nothing stored, no tools — with the
 * passages it was answered from. `signal` stops a model's answer.
 */
export async function answerQuestion(
  deps: Deps,
  orgId: string,
  target: Awaited<ReturnType<typeof evalTarget>>,
  q: EvalQuestion,
  signal: AbortSignal = AbortSignal.timeout(120_000),
): Promise<{ result: EvalResult; used: ScoredPassage[] }> {
  const { agent, provider } = target;
  const passages = await retrieve(deps, orgId, q.question);
  const result = await answer({
    provider,
    system: systemText({ instructions: agent.instructions, agentName: agent.name, customer: null, context: {} }),
    messages: conversationMessages([], { text: q.question, images: 0 }),
    passages,
    tools: [],
    callTool: () => Promise.reject(AppError.badRequest("No tools in an evaluation.")),
    signal,
    emit: { text: () => {}, action: () => {} },
  });
  const confidence = confidenceOf({
    coverage: passages[0]?.score ?? 0,
    question: q.question,
    toolCalls: 0,
    toolFailures: 0,
    frustrated: false,
    answered: result.answered,
  });
  const used = usedPassages(passages, result.text, provider.kind);
  const sources = used.map((p) => ({ doc_id: p.docId, title: p.title }));
  const first = used[0] ? { doc_id: used[0].docId, title: used[0].title, text: used[0].text } : undefined;
  const correct = judge(q, result.text, first);
  return { result: { question: q.question, reply: result.text, confidence, answered: confidence >= CONFIDENCE.offerBelow, sources, correct }, used };
}

/** One question answered and judged (what a run stores of it). */
export async function evaluateOne(
  deps: Deps,
  orgId: string,
  target: Awaited<ReturnType<typeof evalTarget>>,
  q: EvalQuestion,
  signal: AbortSignal = AbortSignal.timeout(120_000),
): Promise<EvalResult> {
  return (await answerQuestion(deps, orgId, target, q, signal)).result;
}

/** Lets the event loop answer other requests: a question's work is CPU between awaits that may never leave the microtask queue. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs every question against the agent (the org's active one by default); one result per question and the totals. */
export async function evaluate(deps: Deps, orgId: string, agentId: string | undefined, questions: readonly EvalQuestion[]) {
  const target = await evalTarget(deps, orgId, agentId);
  const results: EvalResult[] = [];
  for (const q of questions) {
    results.push(await evaluateOne(deps, orgId, target, q));
    await yieldToLoop(); // it may run inside a running server (an admin command through it)
  }
  return { agentId: target.agent.id, results, totals: totalsOf(results, questions) };
}

export type EvalTotals = ReturnType<typeof totalsOf>;

/** The totals of the results of the first `results.length` questions. */
export function totalsOf(results: readonly EvalResult[], questions: readonly EvalQuestion[]) {
  const share = (n: number, of: number) => (of === 0 ? null : Math.round((n / of) * 1000) / 1000);
  const byDoc = results.map((r, i) => ({ r, want: questions[i]!.expectedDoc?.toLowerCase() })).filter((x) => x.want !== undefined);
  const inFirst = (r: EvalResult, want: string, k: number) =>
    r.sources.slice(0, k).some((s) => s.doc_id.toLowerCase() === want || s.title.toLowerCase() === want);
  const judged = results.filter((r) => r.correct !== null);
  return {
    questions: results.length,
    answered: share(results.filter((r) => r.answered).length, results.length),
    correct: share(judged.filter((r) => r.correct).length, judged.length),
    recall_at_1: share(byDoc.filter((x) => inFirst(x.r, x.want!, 1)).length, byDoc.length),
    recall_at_3: share(byDoc.filter((x) => inFirst(x.r, x.want!, 3)).length, byDoc.length),
    confidently_wrong: share(judged.filter((r) => r.answered && r.correct === false).length, judged.length),
  };
}
