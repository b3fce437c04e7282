// Documents cut into passages, once per document version, for the two readers of search results:
// chat knowledge (src/agents/pipeline/knowledge.ts quotes a passage, not a whole document) and the
// `search_docs` snippet (src/knowledge/docs.ts). docs/decisions.md "Search snippets from cached passages".
//
// A passage keeps its words' stems and where each word sits, computed when the version is first
// cut; a search then only compares sets and slices strings. Documents change rarely and the same
// articles answer most questions, so the cache (per process, in deps.passages, least recently used
// out first, bounded in entries and in characters) saves re-reading and re-parsing bodies: the
// snippet PostgreSQL's ts_headline built re-parsed every returned body on every call and was most
// of a search's cost (docs/decisions.md "Performance").
import type { DocPassage, PassageCache, Word } from "../ports/caches.ts";
import { and, eq, inArray } from "drizzle-orm";
import { docs } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { stem, STOP, terms } from "../kit/words.ts";

export const PASSAGES = {
  /** Longest passage, in characters. */
  chars: 1200,
  /** Document versions kept cut, and their characters in all. */
  cacheEntries: 500,
  cacheChars: 16_000_000,
  /** Words in a snippet. */
  snippetWords: 35,
} as const;

export type { DocPassage, PassageCache };

/** Splits text into pieces of at most `max` characters at the weakest boundary that works. */
function pack(units: string[], max: number, joiner: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const unit of units) {
    if (current === "") current = unit;
    else if (current.length + joiner.length + unit.length <= max) current += joiner + unit;
    else {
      out.push(current);
      current = unit;
    }
  }
  if (current !== "") out.push(current);
  return out;
}

function splitLong(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const sentences = text
    .match(/[^.!?\n]+(?:[.!?]+["')\]]*|\n|$)\s*/g)
    ?.map((s) => s.trim())
    .filter(Boolean) ?? [text];
  return pack(
    sentences.flatMap((s) => (s.length <= max ? [s] : (s.match(new RegExp(`[\\s\\S]{1,${max}}`, "g")) ?? []))),
    max,
    " ",
  );
}

/**
 * A document body cut into passages: sections start at markdown headings; a section longer than
 * `max` is packed from its paragraphs (then sentences). Every passage after the first of a
 * section repeats the section's heading, so it still says what it is about.
 */
export function chunkDoc(body: string, max: number = PASSAGES.chars): string[] {
  const clean = body.replace(/\x1e/g, "").replace(/\r\n?/g, "\n").trim();
  if (clean === "") return [];
  if (clean.length <= max) return [clean];
  const sections: { heading: string | null; text: string }[] = [];
  for (const block of clean.split(/\n(?=#{1,6}\s)/)) {
    const match = /^(#{1,6}\s[^\n]*)\n?([\s\S]*)$/.exec(block);
    sections.push(match ? { heading: match[1]!.trim(), text: match[2]!.trim() } : { heading: null, text: block.trim() });
  }
  const passages: string[] = [];
  for (const { heading, text } of sections) {
    const whole = heading ? `${heading}\n${text}`.trim() : text;
    if (whole.length <= max) {
      if (whole !== "") passages.push(whole);
      continue;
    }
    const room = heading ? max - heading.length - 1 : max;
    const paragraphs = text
      .split(/\n{2,}/)
      .map((p) => p.trim())
      .filter(Boolean)
      .flatMap((p) => splitLong(p, room));
    for (const piece of pack(paragraphs, room, "\n\n")) passages.push(heading ? `${heading}\n${piece}` : piece);
  }
  return passages;
}

function wordsOf(text: string): Word[] {
  return [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({ start: m.index, end: m.index + m[0].length, stem: stem(m[0]) }));
}

function cut(title: string, body: string): DocPassage[] {
  const titleStems = wordsOf(title).map((w) => w.stem);
  return chunkDoc(body).map((text) => {
    const words = wordsOf(text);
    const at = new Map<string, number[]>();
    words.forEach((w, i) => (at.get(w.stem) ?? at.set(w.stem, []).get(w.stem)!).push(i));
    return { text, words, at, stems: new Set([...titleStems, ...at.keys()]) };
  });
}

export function createPassageCache(limits: { entries: number; chars: number } = { entries: PASSAGES.cacheEntries, chars: PASSAGES.cacheChars }): PassageCache {
  const entries = new Map<string, { passages: DocPassage[]; chars: number }>();
  let chars = 0;
  return {
    has: (key) => entries.has(key),
    get(key, title, body) {
      const hit = entries.get(key);
      if (hit) {
        // Least recently used goes first: re-insert on use.
        entries.delete(key);
        entries.set(key, hit);
        return hit.passages;
      }
      const passages = cut(title, body());
      const size = passages.reduce((n, p) => n + p.text.length, 0);
      entries.set(key, { passages, chars: size });
      chars += size;
      for (const [oldest, entry] of entries) {
        if (entries.size <= limits.entries && chars <= limits.chars) break;
        if (oldest === key) break;
        entries.delete(oldest);
        chars -= entry.chars;
      }
      return passages;
    },
  };
}

export interface DocVersion {
  id: string;
  title: string;
  updatedAt: Date;
  /**
   * The body as the index holds it (its boilerplate lines left out: src/knowledge/boilerplate.ts),
   * and the key naming that text; read from the database otherwise.
   */
  indexed?: { key: string; text: string };
}

/** The passages of these documents of the org; bodies are read only for versions not cut yet. */
export async function passagesOf(deps: Pick<Deps, "db" | "passages">, orgId: string, versions: readonly DocVersion[]): Promise<Map<string, DocPassage[]>> {
  const keyOf = (v: DocVersion) => v.indexed?.key ?? `${v.id}:${v.updatedAt.getTime()}`;
  const missing = versions.filter((v) => !v.indexed && !deps.passages.has(keyOf(v))).map((v) => v.id);
  const bodies = new Map<string, string>();
  if (missing.length > 0)
    for (const r of await deps.db
      .select({ id: docs.id, body: docs.body })
      .from(docs)
      .where(and(eq(docs.orgId, orgId), inArray(docs.id, missing))))
      bodies.set(r.id, r.body);
  return new Map(versions.map((v) => [v.id, deps.passages.get(keyOf(v), v.title, () => v.indexed?.text ?? bodies.get(v.id) ?? "")]));
}

// The snippet marks matches with private-use characters that cannot be confused with the body's
// own markdown; `snippetText` then drops the body's emphasis markers and turns the marks into `**`.
// Marking with `**` directly put markers inside the body's emphasis ("****Reset**").
const MARK_START = "\uE000";
const MARK_STOP = "\uE001";

/**
 * A run of `*` or `_` that opens or closes emphasis: touching a non-space on one side only.
 * Intraword runs (snake_case) and free-standing ones ("2 * 3", "* item") are left alone; the
 * match marks are transparent to that judgement.
 */
const EMPHASIS = new RegExp(
  [
    "(?<=(?:^|[\\s\\p{P}])[\\uE000\\uE001]*)[*_]+(?=[\\uE000\\uE001]*[^\\s*_\\uE000\\uE001])", // opens
    "(?<=[^\\s*_\\uE000\\uE001][\\uE000\\uE001]*)[*_]+(?=[\\uE000\\uE001]*(?:$|[\\s\\p{P}]))", // closes
  ].join("|"),
  "gu",
);

/** Marked text as plain text with the matched words in `**…**`, never nested in the body's own emphasis. */
export function snippetText(marked: string): string {
  return marked.replace(EMPHASIS, "").replaceAll(MARK_START, "**").replaceAll(MARK_STOP, "**");
}

/** The stems a snippet highlights: the query's content terms, or all its words when it has none. */
export function queryStems(query: string): Set<string> {
  const wanted = terms(query);
  return new Set(wanted.length > 0 ? wanted : (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP.has(w)).map(stem));
}

const isSpace = (c: string) => c === " " || c === "\n" || c === "\t" || c === "\r" || /\s/.test(c);

/**
 * The snippet of a document for a query: from the passage holding the most distinct query terms
 * (the first on a tie), the PASSAGES.snippetWords words around the first run holding the most of
 * them, whole (from the whitespace before its first word to the whitespace after its last), with every word
 * whose stem the query holds in `**`, whitespace folded, the body's emphasis dropped. A document
 * found by its title only gives the start of its first passage.
 */
export function snippetOf(passages: readonly DocPassage[], wanted: ReadonlySet<string>): string {
  // The passage: most distinct query terms in its text (a few map lookups each).
  let passage: DocPassage | undefined;
  let most = -1;
  for (const p of passages) {
    let n = 0;
    for (const w of wanted) if (p.at.has(w)) n++;
    if (n > most) [passage, most] = [p, n];
  }
  if (!passage) return "";
  const { text, words } = passage;
  const size = PASSAGES.snippetWords;
  // Every occurrence of a query term, in order: (word index, which term).
  const hits: { i: number; term: number }[] = [];
  [...wanted].forEach((w, term) => {
    for (const i of passage.at.get(w) ?? []) hits.push({ i, term });
  });
  hits.sort((a, b) => a.i - b.i);
  // The run of at most `size` words holding the most distinct terms (the first such run): two
  // pointers over the occurrences, not a pass over every word.
  const counts = new Map<number, number>();
  let best = { first: 0, last: -1, distinct: 0 };
  for (let l = 0, r = 0; r < hits.length; r++) {
    counts.set(hits[r]!.term, (counts.get(hits[r]!.term) ?? 0) + 1);
    for (; hits[r]!.i - hits[l]!.i >= size; l++) {
      const left = counts.get(hits[l]!.term)! - 1;
      if (left === 0) counts.delete(hits[l]!.term);
      else counts.set(hits[l]!.term, left);
    }
    if (counts.size > best.distinct) best = { first: hits[l]!.i, last: hits[r]!.i, distinct: counts.size };
  }
  // The window around it: a third of the spare words before the first term, the rest after.
  const spare = best.distinct === 0 ? size : size - (best.last - best.first + 1);
  const from = Math.max(0, Math.min(best.first - Math.floor(spare / 3), words.length - size));
  const chosen = words.slice(from, from + size);
  if (chosen.length === 0) return "";
  let start = chosen[0]!.start;
  while (start > 0 && !isSpace(text[start - 1]!)) start--;
  let end = chosen.at(-1)!.end;
  while (end < text.length && !isSpace(text[end]!)) end++;
  let marked = "";
  let cursor = start;
  for (const { i } of hits) {
    if (i < from || i >= from + chosen.length) continue;
    const word = words[i]!;
    marked += text.slice(cursor, word.start) + MARK_START + text.slice(word.start, word.end) + MARK_STOP;
    cursor = word.end;
  }
  marked += text.slice(cursor, end);
  return snippetText(marked.replace(/\s+/g, " ").trim());
}
