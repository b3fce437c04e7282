// Text analysis per language (docs/decisions.md "Text analysis per language"): what a word is, which
// words carry content and what a word's stem is, for the knowledge index and the questions asked
// of it. One analyzer per language, built on first use and kept for the process.
//
//   * Words: Unicode word segmentation (`Intl.Segmenter`, UAX #29 with ICU's dictionaries), so
//     Chinese, Japanese, Thai, Lao, Khmer and Burmese, written without spaces, are split into
//     words; within a word-like segment, runs of letters, combining marks and digits (a Hindi
//     word keeps its vowel signs; "ssa.gov" is two words). A text holding none of those scripts
//     is split on the same runs directly: between spaces and punctuation the segmenter's words
//     are those runs, and the regular expression is several times faster on the question's path.
//   * Stems: Snowball (`snowball-stemmers`, ISC) for the languages it has; English keeps the
//     Porter2 of `wink-porter2-stemmer` (the same algorithm, the stems the index has always
//     used). Other languages are not stemmed — no English stemming of them. Greek is compared
//     without its accents (its stop list is written without them).
//   * Stop words: English keeps the list of src/kit/words.ts (function words and the filler of
//     customers' questions); other languages take `stopwords-iso` (MIT).
import porter2 from "wink-porter2-stemmer";
import snowball from "snowball-stemmers";
import stopwordsIso from "stopwords-iso/stopwords-iso.json" with { type: "json" };
import { STOP } from "./english-stop.ts";
import { normalizeLanguage } from "./language.ts";

export interface Analyzer {
  /** ISO 639-1 (or 639-3) code this analyzer is for. */
  readonly language: string;
  /** The text's words, lower-cased, in order (stop words included). */
  words(text: string): string[];
  /** Whether a lower-cased word carries content (not a stop word, not a lone letter of an alphabet). */
  isContent(word: string): boolean;
  /** A lower-cased word's stem (itself for a language without a stemmer). */
  stem(word: string): string;
  /** The text's content words as stems, de-duplicated. */
  terms(text: string): string[];
}

/** Snowball's algorithm name per ISO 639-1 code (the languages `snowball-stemmers` 0.6.0 has). */
const SNOWBALL: Record<string, string> = {
  ar: "arabic",
  hy: "armenian",
  eu: "basque",
  ca: "catalan",
  cs: "czech",
  da: "danish",
  nl: "dutch",
  fi: "finnish",
  fr: "french",
  de: "german",
  hu: "hungarian",
  it: "italian",
  ga: "irish",
  no: "norwegian",
  nb: "norwegian",
  nn: "norwegian",
  pt: "portuguese",
  ro: "romanian",
  ru: "russian",
  es: "spanish",
  sl: "slovene",
  sv: "swedish",
  ta: "tamil",
  tr: "turkish",
};

/** Scripts written without spaces between words: the segmenter's dictionaries find the words. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const RUN = /[\p{L}\p{N}\p{M}]+/gu;
/** A lone ideograph is a word of its own ("水"); a lone letter of an alphabet is not. */
const IDEOGRAPH = /\p{Script=Han}/u;
/** Languages whose apostrophe joins an elided word to the next ("l'eau", "dell'acqua", "Ankara'da"): split there. */
const SPLIT_APOSTROPHE = new Set(["fr", "it", "ca", "tr", "ga"]);
/**
 * Languages whose `stopwords-iso` list is not used: Thai and Vietnamese, where the list holds words
 * that carry the subject once text is segmented (syllables such as ความ) — on XQuAD's development
 * part the search found the right page less often with them than without (docs/quality.md).
 */
const NO_STOP_LIST = new Set(["th", "vi"]);
/**
 * Chinese takes the list's words of two characters or more (什么, 哪里, 我们: function words and
 * question words) and the structural particles 的, 了, 吗, 呢, but not its other single characters,
 * which often carry the subject (上, 下, 水). Without 的, a pair such as "改革 的" counted as a phrase
 * the page shares (docs/decisions.md "Text analysis per language").
 */
const stopListOf = (language: string, list: readonly string[]): readonly string[] =>
  language === "zh" ? [...list.filter((w) => [...w].length >= 2), "的", "了", "吗", "呢"] : list;
/** Distinct words whose stems an analyzer remembers. */
const STEMS_MAX = 200_000;

const isoLists = stopwordsIso as unknown as Record<string, string[]>;

function build(language: string): Analyzer {
  const segmenter = new Intl.Segmenter(language, { granularity: "word" });
  const english = language === "en";
  const stemmer = english ? null : SNOWBALL[language] ? snowball.newStemmer(SNOWBALL[language]) : null;
  const fold = language === "el" ? (w: string) => w.normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC") : (w: string) => w;
  const stop: ReadonlySet<string> = english
    ? STOP
    : new Set(
        (NO_STOP_LIST.has(language) ? [] : stopListOf(language, isoLists[language] ?? []))
          // Some lists hold the digits: a number is a question's subject ("form 7"), never a stop word here.
          .filter((w) => /\p{L}/u.test(w))
          .map((w) => fold(w.toLowerCase())),
      );
  const apostrophe = SPLIT_APOSTROPHE.has(language) ? " " : "";
  const stems = new Map<string, string>();
  const stemOf = (w: string): string => {
    if (w.length > 40 || /^\p{N}+$/u.test(w)) return w;
    if (english) return porter2(w);
    return stemmer ? stemmer.stem(w) : w;
  };
  const words = (text: string): string[] => {
    const lower = text.toLowerCase().replace(/['’]/g, apostrophe);
    if (!UNSPACED.test(lower)) {
      const runs = lower.match(RUN) ?? [];
      return language === "el" ? runs.map(fold) : runs;
    }
    const out: string[] = [];
    for (const s of segmenter.segment(lower)) if (s.isWordLike) for (const run of s.segment.match(RUN) ?? []) out.push(fold(run));
    return out;
  };
  const isContent = (w: string) => !stop.has(w) && (w.length > 1 || /\d/.test(w) || IDEOGRAPH.test(w));
  const stem = (w: string): string => {
    let s = stems.get(w);
    if (s === undefined) {
      s = stemOf(w);
      if (stems.size < STEMS_MAX) stems.set(w, s);
    }
    return s;
  };
  return { language, words, isContent, stem, terms: (text) => [...new Set(words(text).filter(isContent).map(stem))] };
}

const plainSegmenter = new Intl.Segmenter("und", { granularity: "word" });

/** A text's words by segmentation alone — lower-cased, no stems, no stop words (the benchmark's plain BM25). */
export function segmentWords(text: string): string[] {
  const out: string[] = [];
  for (const s of plainSegmenter.segment(text.toLowerCase())) if (s.isWordLike) for (const run of s.segment.match(RUN) ?? []) out.push(run);
  return out;
}

const analyzers = new Map<string, Analyzer>();

/** The analyzer for a language tag ("es", "pt-BR"); English for none or one that is not a tag. */
export function analyzerFor(language: string | null | undefined): Analyzer {
  const code = normalizeLanguage(language) ?? "en";
  let analyzer = analyzers.get(code);
  if (!analyzer) analyzers.set(code, (analyzer = build(code)));
  return analyzer;
}

/** Whether the language has a stemmer here (Snowball's, or English's Porter2). */
export const hasStemmer = (language: string): boolean => language === "en" || SNOWBALL[language] !== undefined;

/** Whether the language has a stop list here. */
export const hasStopWords = (language: string): boolean => language === "en" || (isoLists[language]?.length ?? 0) > 0;
