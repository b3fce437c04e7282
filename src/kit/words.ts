// Words as the knowledge features compare them: lower-cased letter/digit runs, light suffix
// stemming, English stop words dropped. Shared by the builtin provider's term coverage
// (src/agents/llm/builtin.ts), chat knowledge retrieval and search_docs snippets
// (src/knowledge/passages.ts), so all three agree on what "the same word" is.
export const STOP = new Set(
  (
    "a about above after again all am an and any are as at be because been before being below between both but by can cannot could did do does doing don down during each " +
    "few for from further get got had has have having he her here hers him his how i if in into is it its itself just let me more most my myself no nor not now of off on once " +
    "only or other our ours out over own please same she should so some such than thank thanks that the their theirs them then there these they this those through to too " +
    "under until up us very want was we were what when where which while who whom why will with would you your yours yourself hi hello hey tell know need help way like one"
  ).split(" "),
);

/** A word reduced to a comparable stem: `passwords`/`password`, `resetting`/`reset`, `billed`/`bill`. */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 5 && w.endsWith("ing")) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith("ed")) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("es") && /(ss|sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);
  // resetting → resett → reset
  if (w.length > 3 && w.at(-1) === w.at(-2) && !/[aeiou]/.test(w.at(-1)!)) w = w.slice(0, -1);
  return w;
}

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The question's content terms, stemmed and de-duplicated. */
export function terms(question: string): string[] {
  return [...new Set(words(question).filter((w) => !STOP.has(w) && (w.length > 1 || /\d/.test(w))).map(stem))];
}

