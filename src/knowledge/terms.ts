// The terms the lexical index (src/knowledge/lexical.ts) counts: a text's content words as stems
// of the text's language (src/kit/analyzer.ts), their adjacent pairs, and hyphenated words joined;
// and a document body's sections along its headings.
import { type Analyzer, analyzerFor } from "../kit/analyzer.ts";
import { chunkDoc } from "./passages.ts";

/** Adjacent content words as one term ("learner permit"): a question using the same two words together matches them together. */
export function pairsOf(stems: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < stems.length; i++) if (stems[i - 1] !== stems[i]) out.push(`${stems[i - 1]} ${stems[i]}`);
  return out;
}

/** Stems of a text's content words, their adjacent pairs, with hyphenated pairs also joined ("non-citizen" → non, citizen, noncitizen). */
export function indexTerms(text: string, analyzer: Analyzer = analyzerFor("en")): string[] {
  const stems = analyzer.words(text).filter(analyzer.isContent).map(analyzer.stem);
  const out = [...stems, ...pairsOf(stems)];
  for (const m of text.toLowerCase().matchAll(/([\p{L}\p{M}]{2,})-([\p{L}\p{M}]{2,})/gu)) out.push(analyzer.stem(m[1]! + m[2]!));
  return out;
}

export const count = (into: Map<string, number>, terms: readonly string[], weight: number) => {
  for (const t of terms) into.set(t, (into.get(t) ?? 0) + weight);
};

/** A body's sections along its markdown headings, each with the path of headings above it. */
export function sectionsOf(body: string): { headings: string[]; text: string }[] {
  const clean = body.replace(/\x1e/g, "").replace(/\r\n?/g, "\n");
  const out: { headings: string[]; text: string }[] = [];
  const stack: { level: number; text: string }[] = [];
  for (const block of clean.split(/\n(?=#{1,6}\s)/)) {
    const match = /^(#{1,6})\s+([^\n]*)/.exec(block);
    if (match) {
      const level = match[1]!.length;
      while (stack.length > 0 && stack.at(-1)!.level >= level) stack.pop();
      stack.push({ level, text: match[2]!.trim() });
    }
    if (block.trim() !== "") out.push({ headings: stack.map((h) => h.text), text: block.trim() });
  }
  return out;
}

/**
 * A page's weighted terms: its passages (cut from `kept`, the body without its boilerplate lines),
 * each counting its text, its heading path and the page title at their weights; the whole page's
 * terms (title and kept text); and the content words of the whole body with their counts (the
 * vocabulary typos are matched against). A page without text has one passage, its title.
 */
export function pageTerms(
  title: string,
  body: string,
  kept: string,
  analyzer: Analyzer,
  weights: { titleWeight: number; headingWeight: number },
): { tf: Map<string, number>; surfaces: Map<string, number>; passages: { text: string; headings: string[]; tf: Map<string, number>; length: number }[] } {
  const titleTerms = indexTerms(title, analyzer);
  const tf = new Map<string, number>();
  const surfaces = new Map<string, number>();
  const passages: { text: string; headings: string[]; tf: Map<string, number>; length: number }[] = [];
  const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  count(tf, titleTerms, weights.titleWeight);
  for (const w of analyzer.words(`${title}\n${body}`)) if (analyzer.isContent(w) && w.length >= 3) surfaces.set(w, (surfaces.get(w) ?? 0) + 1);
  for (const section of sectionsOf(kept)) {
    const headingTerms = indexTerms(section.headings.join("\n"), analyzer);
    for (const chunk of chunkDoc(section.text)) {
      const bodyTerms = indexTerms(section.headings.length > 0 ? chunk.replace(/^#{1,6}\s[^\n]*\n?/, "") : chunk, analyzer);
      const own = new Map<string, number>();
      count(own, bodyTerms, 1);
      count(own, headingTerms, weights.headingWeight);
      count(own, titleTerms, weights.titleWeight);
      count(tf, bodyTerms, 1);
      passages.push({ text: chunk, headings: section.headings, tf: own, length: total(own) });
    }
  }
  if (passages.length === 0) {
    const own = new Map<string, number>();
    count(own, titleTerms, weights.titleWeight);
    passages.push({ text: title, headings: [], tf: own, length: total(own) });
  }
  return { tf, surfaces, passages };
}
