// Words as the knowledge features compare them: lower-cased letter/digit runs, stemmed with the
// Snowball English (Porter2) stemmer, stop words dropped. Shared by the builtin provider
// (src/agents/llm/builtin.ts), chat knowledge retrieval (src/knowledge/lexical.ts) and search_docs
// snippets (src/knowledge/passages.ts), so all of them agree on what "the same word" is.
import porter2 from "wink-porter2-stemmer";

/**
 * English function words, and the filler of customers' questions ("what is the best place to
 * learn more about…"): words that say how something is asked, not what it is about. A content
 * word here would count as half a question's subject and pull in any page that happens to use it.
 */
export const STOP = new Set(
  (
    "a about above after again all am an and any are as at be because been before being below between both but by can cannot could did do does doing don down during each " +
    "few for from further get got had has have having he her here hers him his how i if in into is it its itself just let me more most my myself no nor not now of off on once " +
    "only or other our ours out over own please same she should so some such than thank thanks that the their theirs them then there these they this those through to too " +
    "under until up us very want was we were what when where which while who whom why will with would you your yours yourself hi hello hey tell know need help way like one " +
    "ok okay yes yeah yep sure right alright fine good great cool nice hmm um uh oh well also just really actually maybe perhaps anyway " +
    "best better place deeper deep further look looking find finding learn learning read reading info information question questions thing things something anything " +
    "someone somebody anyone everything lot lots much many kind sort bit go going went come stuff may might must shall im ive id dont cant wont didnt isnt doesnt " +
    "wanted wondering wonder wonderful mean means say said see seen interested curious detail details specific specifically exactly give gave provide site website page"
  ).split(" "),
);

/** A word reduced to its Snowball English stem: `consolidating`/`consolidation` → `consolid`, `received` → `receiv`. */
export function stem(word: string): string {
  const w = word.toLowerCase();
  // Digits and very long runs are kept as they are (the stemmer has nothing to do with them).
  return w.length > 40 || /^\p{N}+$/u.test(w) ? w : porter2(w);
}

export function words(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/['’]/g, "")
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** Whether a lower-cased word carries content (not a stop word, not a lone letter). */
export const isContent = (w: string) => !STOP.has(w) && (w.length > 1 || /\d/.test(w));

/** The question's content terms, stemmed and de-duplicated. */
export function terms(question: string): string[] {
  return [...new Set(words(question).filter(isContent).map(stem))];
}
