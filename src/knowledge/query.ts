// A customer's question as weighted index terms (docs/decisions.md "Knowledge retrieval"): the
// current message's content words count fully; earlier customer turns of the conversation count
// less; a word the org's documents never use is matched to the closest word they do use (a
// typo: edit distance 1, or 2 for words of eight letters and more); two words written apart that
// the documents write together ("non citizen", "noncitizen") or the other way round are joined or
// split; and the org's synonyms add their other words. Only the current message's own terms
// count for `current` (what confidence reads). The message is read with the analyzer of the
// customer's language when some page is in it (src/knowledge/index-languages.ts), and `language`
// names it so the index prefers pages in it.
import type { Analyzer } from "../kit/analyzer.ts";
import type { LexicalIndex } from "./lexical.ts";
import type { WeightedTerms } from "./index-types.ts";

export const QUERY = {
  /** Weight of the most recent earlier customer turn's terms, and of each turn before it (relative to the current message's 1). */
  lastTurn: 0.45,
  olderTurn: 0.25,
  /** Earlier customer turns read. */
  turns: 4,
  typo: 0.8,
  split: 0.8,
  synonym: 0.7,
  /** Two adjacent content words found together, on top of each word. */
  pair: 1,
  /** Letters an unknown word shares with the start of a page's word to stand for it (not in English: src/knowledge/query.ts `sharedPrefix`). */
  prefix: 7,
  /** Characters of a message read. */
  chars: 2000,
} as const;

export interface Query {
  terms: WeightedTerms;
  /** The current message's own terms (after corrections), for the evidence of an answer. */
  current: WeightedTerms;
  /** The language the message was analysed in (src/kit/analyzer.ts). */
  language: string;
}

/** Whether `a` and `b` are within `max` edits (Levenshtein), without building the whole table when they cannot be. */
export function withinEdits(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let lowest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      row.push(value);
      if (value < lowest) lowest = value;
    }
    if (lowest > max) return false;
    previous = row;
  }
  return previous[b.length]! <= max;
}

/**
 * A word's length in letters, its combining marks not counted: the vowel signs of Devanagari or
 * Thai and diacritics written apart are part of a letter. "बालों" (hair) is five code units but two
 * letters; one edit of it ("बलों", forces) is another word, not a typo.
 */
function lettersIn(word: string): number {
  return word.replace(/\p{M}/gu, "").length;
}

/**
 * The org vocabulary's most used word within reach of a misspelt `word`, if any; of words used
 * equally often, the first in code-unit order — not the first in the vocabulary's own order, which
 * follows the history of edits, so an index edited page by page corrects as one built afresh does.
 */
function correction(index: LexicalIndex, word: string): string | undefined {
  const letters = lettersIn(word);
  if (letters < 5 || /\d/.test(word)) return undefined;
  const max = letters >= 8 ? 2 : 1;
  let found: string | undefined;
  let uses = 0;
  for (const [candidate, n] of index.surfaces) {
    if (n < uses || (n === uses && candidate > found!) || Math.abs(candidate.length - word.length) > max) continue;
    if (withinEdits(word, candidate, max)) {
      found = candidate;
      uses = n;
    }
  }
  return found;
}

/**
 * The org vocabulary's most used word beginning with the same QUERY.prefix letters as `word` (and
 * sharing at least two thirds of the shorter one), for languages other than English: their
 * Snowball stemmers leave many inflections apart ("restablezco" and "restablecer" in Spanish) that
 * a reader takes for the same word. Ties go to the first in code-unit order, as for typos.
 */
function sharedPrefix(index: LexicalIndex, word: string): string | undefined {
  if (word.length < QUERY.prefix || /\d/.test(word)) return undefined;
  const head = word.slice(0, QUERY.prefix);
  let found: string | undefined;
  let uses = 0;
  for (const [candidate, n] of index.surfaces) {
    if (!candidate.startsWith(head) || n < uses || (n === uses && candidate > found!)) continue;
    let common = QUERY.prefix;
    while (common < word.length && candidate[common] === word[common]) common++;
    if (common * 3 >= Math.min(word.length, candidate.length) * 2) [found, uses] = [candidate, n];
  }
  return found;
}

function add(into: WeightedTerms, term: string, weight: number) {
  if (weight > (into.get(term) ?? 0)) into.set(term, weight);
}

/** The weighted terms of one message against the org's vocabulary. */
function messageTerms(index: LexicalIndex, analyzer: Analyzer, text: string, synonyms: ReadonlyMap<string, readonly string[]>, scale: number): WeightedTerms {
  const { isContent, stem } = analyzer;
  const out: WeightedTerms = new Map();
  const all = analyzer.words(text.slice(0, QUERY.chars));
  for (let i = 0; i < all.length; i++) {
    const word = all[i]!;
    const next = all[i + 1];
    // Written apart here, together in the documents.
    if (next !== undefined && (isContent(word) || isContent(next))) {
      const joined = stem(word + next);
      if (index.has(joined) && index.surfaces.has(word + next)) add(out, joined, scale);
    }
    if (!isContent(word)) continue;
    const term = stem(word);
    if (index.has(term)) add(out, term, scale);
    else {
      // Written together here, apart in the documents.
      let split = false;
      for (let at = 3; at <= word.length - 3 && !split; at++) {
        const left = word.slice(0, at);
        const right = word.slice(at);
        if (index.surfaces.has(left) && index.surfaces.has(right)) {
          add(out, stem(left), scale * QUERY.split);
          add(out, stem(right), scale * QUERY.split);
          split = true;
        }
      }
      if (!split) {
        const fixed = correction(index, word) ?? (analyzer.language === "en" ? undefined : sharedPrefix(index, word));
        if (fixed) add(out, stem(fixed), scale * QUERY.typo);
        else add(out, term, scale); // unknown everywhere: kept, so the question still has content
      }
    }
  }
  // Adjacent content words, in the order the message uses them, where the documents use them together too.
  const singles = [...out].filter(([term]) => !term.includes(" "));
  const pairs: [string, number][] = [];
  for (let i = 1; i < singles.length; i++) pairs.push([`${singles[i - 1]![0]} ${singles[i]![0]}`, Math.min(singles[i - 1]![1], singles[i]![1])]);
  for (const [pair, weight] of pairs) if (index.has(pair)) add(out, pair, weight * QUERY.pair);
  // The org's synonyms of a word, or of two adjacent words.
  for (const [term, weight] of [...singles, ...pairs]) {
    const others = synonyms.get(term) ?? [];
    for (const other of others) add(out, other, weight * QUERY.synonym);
    // Words no document uses match nothing: once a synonym stands in for them, they no longer count
    // as the part of the question left uncovered.
    if (others.length > 0) for (const part of term.split(" ")) if (!index.has(part)) out.delete(part);
  }
  return out;
}

/**
 * The query for a message and the customer's earlier turns (oldest first). `synonyms`: a stem →
 * the stems it may be replaced by (src/knowledge/synonyms.ts). `language`: the customer's
 * (src/kit/language.ts `customerLanguage`); without it, the language most pages are in.
 */
export function buildQuery(
  index: LexicalIndex,
  message: string,
  earlier: readonly string[] = [],
  synonyms: ReadonlyMap<string, readonly string[]> = new Map(),
  language?: string | null,
): Query {
  const analyzer = index.languages.analyzerFor(language);
  const current = messageTerms(index, analyzer, message, synonyms, 1);
  const terms: WeightedTerms = new Map(current);
  const turns = earlier.slice(-QUERY.turns).reverse();
  turns.forEach((turn, i) => {
    for (const [term, weight] of messageTerms(index, analyzer, turn, synonyms, i === 0 ? QUERY.lastTurn : QUERY.olderTurn)) add(terms, term, weight);
  });
  return { terms, current, language: analyzer.language };
}
