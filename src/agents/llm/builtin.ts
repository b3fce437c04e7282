// The builtin provider (the default; no network, no key). It is deterministic and
// extractive: it answers the customer's current message (the last user message) with the most
// relevant lines of the first passage retrieval ranked that covers enough of the question,
// introduced by its page title, and when none does it says so plainly and offers a person. A
// message without content words ("yes", "ok") gets a question back. It never writes a fact that
// is not in a passage, and never calls tools. See docs/decisions.md "The builtin provider".
//
// Coverage is the share of the question's content words (src/kit/words.ts: Snowball stems, stop
// words dropped) a passage holds, weighted by how rare they are when retrieval measured it
// (src/knowledge/lexical.ts), else counted here. A passage answers when it covers at least
// COVERAGE_THRESHOLD; retrieval's order (best page first) is kept. When retrieval's evidence for
// the page is weak, the reply says the page may help rather than presenting it as the answer.
import { stem, terms, words } from "../../kit/words.ts";
import { LlmError } from "./errors.ts";
import type { LlmEvent, LlmMessage, LlmProvider, LlmRequest, Passage } from "./types.ts";

/** Least coverage of a passage whose coverage retrieval measured (weighted by rarity: src/knowledge/lexical.ts). */
export const COVERAGE_THRESHOLD = 0.2;
/** Least coverage of a passage measured here (every content word counts the same). */
export const PLAIN_COVERAGE_THRESHOLD = 0.6;
/** Below this evidence (Passage.score from retrieval) the reply is worded as a lead, not an answer. */
export const LEAD_BELOW = 0.5;
/**
 * Below this chance that the knowledge base holds an answer at all (Passage.held from retrieval:
 * src/agents/pipeline/confidence.ts `heldOf`), nothing is quoted: the reply says plainly that the
 * articles do not answer, names the closest one, and offers a person.
 */
export const HELD_BELOW = 0.5;
/** Most characters quoted from a passage. */
export const EXTRACT_MAX = 700;

/** Share (0–1) of the question's terms found in `text`; 0 for a question with no terms. */
export function coverage(question: string, text: string): number {
  const wanted = terms(question);
  return wanted.length === 0 ? 0 : covered(wanted, stemsOf(text));
}

const stemsOf = (text: string): ReadonlySet<string> => new Set(words(text).map(stem));

/** Share (0–1) of `wanted` (non-empty) among `present`. */
function covered(wanted: readonly string[], present: ReadonlySet<string>): number {
  return wanted.filter((t) => present.has(t)).length / wanted.length;
}

const GREETING = /^\s*(hi|hello|hey|good (morning|afternoon|evening)|howdy)\b[\s!.,]*$/i;
const THANKS = /^\s*(thanks?|thank you|thx|cheers)\b[^?]*$/i;

export const NO_ANSWER =
  "I'm sorry, I couldn't find an answer to that in our help articles, and I don't want to guess. Would you like me to connect you with a person from our team?";

/** No answer, with the closest article named (it is listed among the reply's sources for the customer to judge). */
export const noAnswerNear = (title: string) =>
  `I'm sorry, I couldn't find an answer to that in our help articles, and I don't want to guess. The closest one is "${title}", but it may not cover your question. Would you like me to connect you with a person from our team?`;

/** Units a passage is quoted by: its lines, and the sentences of long lines. */
function units(text: string): string[] {
  return text
    .split(/\n+/)
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .flatMap((line) =>
      line.length <= 240 ? [line] : (line.match(/[^.!?]+[.!?]+["')\]]*\s*|[^.!?]+$/g) ?? [line]).map((s) => s.trim()).filter((s) => s !== ""),
    );
}

/** The most relevant stretch of consecutive units of a passage, at most EXTRACT_MAX characters. */
export function extract(question: string, text: string): string {
  const clean = text.replace(/\x1e/g, "").trim();
  if (clean.length <= EXTRACT_MAX) return clean;
  const parts = units(clean);
  // The question's terms once, not once per unit.
  const wanted = terms(question);
  const scores = parts.map((p) => (wanted.length === 0 ? 0 : covered(wanted, stemsOf(p))));
  let best = 0;
  for (let i = 1; i < parts.length; i++) if (scores[i]! > scores[best]!) best = i;
  // A heading or a line ending in ":" introduces what follows: start there, then take the
  // following units while they fit (a list of steps stays together).
  let start = best;
  if (start > 0 && /^#{1,6}\s|:$/.test(parts[start - 1]!)) start--;
  const chosen: string[] = [];
  let size = 0;
  for (let i = start; i < parts.length; i++) {
    const part = parts[i]!;
    if (size + part.length + 1 > EXTRACT_MAX) break;
    chosen.push(part);
    size += part.length + 1;
  }
  if (chosen.length === 0) return `${parts[best]!.slice(0, EXTRACT_MAX - 1)}…`;
  return chosen.join("\n");
}

function lastUserMessage(messages: readonly LlmMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return messages[i]!.content;
  return "";
}

/** The passages that answer `question`: in retrieval's order (best page first) when it measured their coverage, else by coverage. */
export function answeringPassages(question: string, passages: readonly Passage[]): { passage: Passage; coverage: number }[] {
  const wanted = terms(question);
  if (wanted.length === 0) return [];
  return (
    passages
      .map((passage, i) => ({
        passage,
        i,
        measured: passage.coverage !== undefined,
        coverage: passage.coverage ?? covered(wanted, passage.stems ?? stemsOf(`${passage.title}\n${passage.text}`)),
        inTitle: covered(wanted, stemsOf(passage.title)),
      }))
      .filter((p) => p.coverage >= (p.measured ? COVERAGE_THRESHOLD : PLAIN_COVERAGE_THRESHOLD))
      // Retrieval's order when it measured coverage; otherwise the best-covering passage first, then the title's.
      .sort((a, b) => (a.measured && b.measured ? a.i - b.i : b.coverage - a.coverage || b.inTitle - a.inTitle || a.i - b.i))
      .map(({ passage, coverage }) => ({ passage, coverage }))
  );
}

export const ASK_BACK = "Could you tell me a little more about what you need? I'll look for the answer in our help articles.";

/** The full answer the builtin provider gives (also what its stream concatenates to). */
export function builtinAnswer(request: Pick<LlmRequest, "messages" | "passages">): string {
  const question = lastUserMessage(request.messages);
  if (GREETING.test(question)) return "Hello! Ask me a question and I'll look for the answer in our help articles.";
  if (THANKS.test(question)) return "You're welcome! Is there anything else I can help you with?";
  const contentless = terms(question).length === 0;
  // A message without content words: a lead from the conversation's page when retrieval found one, else a question back.
  const found = contentless
    ? request.passages.filter((p) => (p.coverage ?? 0) >= COVERAGE_THRESHOLD).map((passage) => ({ passage, coverage: passage.coverage ?? 0 }))
    : answeringPassages(question, request.passages);
  if (contentless && found.length === 0) return ASK_BACK;
  const best = found[0];
  if (!best) return NO_ANSWER;
  if (!contentless && best.passage.held !== undefined && best.passage.held < HELD_BELOW) return noAnswerNear(best.passage.title);
  // No "Source:" line: the reply's `sources` (every document that answers, with its URL) names
  // them once, and the widget lists them under the answer (README "Chat").
  const intro = contentless || best.passage.score < LEAD_BELOW ? `This article may help: "${best.passage.title}".` : `From "${best.passage.title}":`;
  return [intro, "", extract(question, best.passage.text)].join("\n").replace(/\x1e/g, "");
}

export function builtinProvider(model = "builtin-extractive"): LlmProvider {
  return {
    kind: "builtin",
    model,
    async *stream(request): AsyncGenerator<LlmEvent> {
      const answer = builtinAnswer(request);
      // Line by line, so the stream behaves like a model's (several text events, then done).
      const pieces = answer.match(/[^\n]*\n|[^\n]+$/g) ?? [answer];
      for (const text of pieces) {
        if (request.signal.aborted) throw new LlmError("the request was cancelled", false, undefined, "aborted");
        yield { type: "text", text };
      }
      yield { type: "done", stop: "end", usage: { input: 0, output: 0 } };
    },
  };
}
