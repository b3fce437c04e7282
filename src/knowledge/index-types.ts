// The shapes the lexical index (src/knowledge/lexical.ts) takes in and gives back: a document and
// its passages as indexed, a weighted query, and the ranked pages with their best passages.

export interface IndexDoc {
  id: string;
  title: string;
  url: string | null;
  body: string;
  updatedAt: Date;
  /** The page's language (ISO 639-1); English when absent (src/kit/analyzer.ts). */
  language?: string | null;
}

export interface IndexPassage {
  docId: string;
  /** The page's number in the index. */
  page: number;
  text: string;
  headings: string[];
  /** Weighted term frequency (body + heading and title words counted by their weights). */
  tf: Map<string, number>;
  length: number;
}

/** A query term and how much it counts (1 for the current message's words, less for expansions and earlier turns). */
export type WeightedTerms = Map<string, number>;

export interface RankedPassage {
  text: string;
  headings: string[];
  score: number;
}

export interface RankedPage {
  docId: string;
  title: string;
  url: string | null;
  score: number;
  passages: RankedPassage[];
  /** Share (0–1) of `coverageOf`'s weighted idf mass present in the page's best passage (title and headings included). */
  coverage: number;
  /** The same share for the query's `current` terms (the message itself, without earlier turns), when the search was given them. */
  currentCoverage?: number;
}
