// Words as the knowledge features compare them, in English (the language of a text nothing says
// otherwise of): src/kit/analyzer.ts's English analyzer — words by Unicode segmentation, stemmed
// with the Snowball English (Porter2) stemmer, stop words dropped. Shared by the builtin provider
// (src/agents/llm/builtin.ts), chat knowledge retrieval (src/knowledge/lexical.ts) and search_docs
// snippets (src/knowledge/passages.ts), so all of them agree on what "the same word" is; a text
// in another language goes through `analyzerFor(language)`.
import { analyzerFor } from "./analyzer.ts";

export { STOP } from "./english-stop.ts";

const english = () => analyzerFor("en");

/** A word reduced to its Snowball English stem: `consolidating`/`consolidation` → `consolid`, `received` → `receiv`. */
export function stem(word: string): string {
  return english().stem(word.toLowerCase());
}

export function words(text: string): string[] {
  return english().words(text);
}

/** Whether a lower-cased word carries content (not a stop word, not a lone letter). */
export const isContent = (w: string) => english().isContent(w);

/** The question's content terms, stemmed and de-duplicated. */
export function terms(question: string): string[] {
  return english().terms(question);
}
