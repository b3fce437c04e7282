// The builtin provider (the default; no network, no key). It is deterministic and
// extractive: it answers the customer's current message (the last user message) with the most
// relevant sentences of the first passage retrieval ranked that covers enough of the question, as
// plain text (src/agents/llm/plain-text.ts: no markdown, links or HTML; whole sentences), and
// when none does it says so plainly and offers a person. The page it quotes is named by the
// reply's sources, not in its text. A message without content words ("yes", "ok") gets a question
// back. It never writes a fact that is not in a passage, and never calls tools. See
// docs/decisions.md "The builtin provider" and "Answers that read as answers".
//
// Coverage is the share of the question's content words (src/kit/words.ts: Snowball stems, stop
// words dropped) a passage holds, weighted by how rare they are when retrieval measured it
// (src/knowledge/lexical.ts), else counted here. A passage answers when it covers at least
// COVERAGE_THRESHOLD; retrieval's order (best page first) is kept. When retrieval's evidence for
// the page is weak, the reply says the page may help rather than presenting it as the answer.
//
// Its own sentences (no answer, a question back, a greeting) come from the catalogue in the
// customer's language (`request.say`, README "Languages"); that it found no answer is said as data
// (`answered: false` on its `done` event), never left for the pipeline to read back from the text.
import { t } from "../../i18n/catalogue.ts";
import { stem, terms, words } from "../../kit/words.ts";
import { LlmError } from "./errors.ts";
import { join, type PlainBlock, plainBlocks, separator } from "./plain-text.ts";
import type { LlmEvent, LlmMessage, LlmProvider, LlmRequest, Passage, Say } from "./types.ts";
import { GREETING_LINE } from "../../kit/greetings.ts";

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

const THANKS = /^\s*(thanks?|thank you|thx|cheers)\b[^?]*$/i;

const english: Say = (key, params) => t("en", key, params);

/** The no-answer sentence in English (the catalogue's `agent.no_answer`). */
export const NO_ANSWER = english("agent.no_answer");

/** No answer, with the closest article named (it is listed among the reply's sources for the customer to judge). */
export const noAnswerNear = (title: string, say: Say = english) => say("agent.no_answer_near", { title });

/** A unit a passage is quoted by: a sentence of a paragraph or list item, a table row, a code block, or a heading (never quoted first). */
type Unit = PlainBlock;

const sentences = new Intl.Segmenter("en", { granularity: "sentence" });

/** The passage's units: its plain-text blocks (src/agents/llm/plain-text.ts), paragraphs and list items cut into whole sentences. */
function units(text: string): Unit[] {
  return plainBlocks(text).flatMap((block) => {
    if (block.kind !== "paragraph" && block.kind !== "item") return [block];
    const out: string[] = [];
    for (const { segment } of sentences.segment(block.text)) {
      const s = segment.trim();
      // A list item's marker ("1.", "•") is never a sentence of its own.
      if (out.length === 1 && /^(\d+\.|•)$/.test(out[0]!)) out[0] = `${out[0]} ${s}`;
      else if (s !== "") out.push(s);
    }
    return out.map((s, i) => ({ ...block, text: i === 0 && block.kind === "item" ? block.text.slice(0, block.text.indexOf(block.text.trimStart())) + s : s }));
  });
}

/** A passage cut into units, each unit's stems, and its text without headings. */
interface Parsed {
  parts: Unit[];
  stems: ReadonlySet<string>[];
  whole: string;
}

/**
 * Passages cut into units, by their text: the same passages answer question after question, and
 * cutting one (a markdown lexer, sentence segmentation, stemming) costs far more than choosing
 * what to quote of it. At most PARSED_MAX texts, the oldest dropped first.
 */
const parsed = new Map<string, Parsed>();
const PARSED_MAX = 500;

function parsedOf(text: string): Parsed {
  let found = parsed.get(text);
  if (!found) {
    const parts = units(text.replace(/\x1e/g, ""));
    found = { parts, stems: parts.map((p) => stemsOf(p.text)), whole: join(parts.filter((p) => p.kind !== "heading")) };
    if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value!);
    parsed.set(text, found);
  }
  return found;
}

/**
 * What to quote of a passage, as plain text: the whole of it when it fits EXTRACT_MAX, otherwise
 * the most relevant run of whole units (sentences, items, rows) that fits, starting at its best
 * unit — or at the line ending in ":" just before it, so a list of steps keeps its introduction.
 * Headings are never the first or the last thing quoted (the reply starts with the answer). Only
 * a single sentence longer than EXTRACT_MAX is cut, at a word, and marked "…".
 */
export function extract(question: string, text: string): string {
  const { parts, stems, whole } = parsedOf(text);
  if (parts.length === 0) return "";
  const wanted = terms(question);
  const scores = stems.map((present) => (wanted.length === 0 ? 0 : covered(wanted, present)));
  let start = 0;
  if (whole.length > EXTRACT_MAX) {
    for (let i = 1; i < parts.length; i++) if (scores[i]! > scores[start]!) start = i;
    if (start > 0 && parts[start - 1]!.kind !== "heading" && parts[start - 1]!.text.endsWith(":")) start--;
  }
  while (start < parts.length - 1 && parts[start]!.kind === "heading") start++;
  const chosen: Unit[] = [];
  let size = 0;
  for (let i = start; i < parts.length; i++) {
    const part = parts[i]!;
    const added = (chosen.length === 0 ? 0 : separator(chosen.at(-1)!, part).length) + part.text.length;
    if (size + added > EXTRACT_MAX) break;
    chosen.push(part);
    size += added;
  }
  while (chosen.at(-1)?.kind === "heading") chosen.pop();
  if (chosen.length === 0) {
    const long = parts[start]!.text;
    if (parts[start]!.kind === "heading") return "";
    const cut = long.slice(0, EXTRACT_MAX - 1);
    const space = cut.lastIndexOf(" ");
    return `${(space > EXTRACT_MAX / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, "")}…`;
  }
  return join(chosen);
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

export const ASK_BACK = english("agent.ask_back");

/** What the builtin provider says, and whether it answered (false: it said it found no answer; `closest`: the document it named). */
export interface BuiltinReply {
  text: string;
  answered: boolean;
  closest?: string;
}

/** The full answer the builtin provider gives (also what its stream concatenates to). */
export function builtinAnswer(request: Pick<LlmRequest, "messages" | "passages" | "say">): string {
  return builtinReply(request).text;
}

export function builtinReply(request: Pick<LlmRequest, "messages" | "passages" | "say">): BuiltinReply {
  const say = request.say ?? english;
  const said = (text: string): BuiltinReply => ({ text, answered: true });
  const question = lastUserMessage(request.messages);
  // Greetings and thanks are recognised in English only: another language's greeting is answered as a question would be.
  if (GREETING_LINE.test(question)) return said(say("agent.greeting_reply"));
  if (THANKS.test(question)) return said(say("agent.thanks_reply"));
  const contentless = terms(question).length === 0;
  // A message without content words: a lead from the conversation's page when retrieval found one, else a question back.
  const found = contentless
    ? request.passages.filter((p) => (p.coverage ?? 0) >= COVERAGE_THRESHOLD).map((passage) => ({ passage, coverage: passage.coverage ?? 0 }))
    : answeringPassages(question, request.passages);
  if (contentless && found.length === 0) return said(say("agent.ask_back"));
  const best = found[0];
  if (!best) return { text: say("agent.no_answer"), answered: false };
  if (!contentless && best.passage.held !== undefined && best.passage.held < HELD_BELOW)
    return { text: noAnswerNear(best.passage.title.replace(/\x1e/g, ""), say), answered: false, closest: best.passage.docId };
  // The reply starts with the answer, in plain text; the page it comes from is not named in it:
  // the reply's `sources` (every document that answers, with its URL) name it, and the widget
  // lists them under the answer (README "Chat"). Weak evidence is offered as a lead, by title.
  const quoted = extract(question, best.passage.text);
  const title = best.passage.title.replace(/\x1e/g, "");
  if (contentless || best.passage.score < LEAD_BELOW || quoted === "") {
    const lead = say("agent.may_help", { title });
    return said(quoted === "" ? lead : `${lead}\n\n${quoted}`);
  }
  return said(quoted);
}

export function builtinProvider(model = "builtin-extractive"): LlmProvider {
  return {
    kind: "builtin",
    model,
    async *stream(request): AsyncGenerator<LlmEvent> {
      const reply = builtinReply(request);
      // A few words at a time, so the stream behaves like a model's (several text events, then
      // done) without an event per word: each event passes through the turn and the stream's writes.
      const pieces = reply.text.match(/(?:\s*\S+){1,4}/g) ?? [reply.text];
      for (const text of pieces) {
        if (request.signal.aborted) throw new LlmError("the request was cancelled", false, undefined, "aborted");
        yield { type: "text", text };
      }
      yield { type: "done", stop: "end", usage: { input: 0, output: 0 }, answered: reply.answered, ...(reply.closest ? { closest: reply.closest } : {}) };
    },
  };
}
