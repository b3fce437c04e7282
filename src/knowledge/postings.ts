// Postings lists of the lexical index (src/knowledge/lexical.ts).

/**
 * One term's postings: parallel arrays of item numbers (passages or pages) and weighted term
 * frequencies. Items removed stay until the arrays are compacted; `live` counts the others (its
 * document frequency).
 */
export interface Postings {
  items: number[];
  tf: number[];
  live: number;
}

export function post(map: Map<string, Postings>, term: string, item: number, tf: number) {
  let list = map.get(term);
  if (!list) map.set(term, (list = { items: [], tf: [], live: 0 }));
  list.items.push(item);
  list.tf.push(tf);
  list.live++;
}

export function unpost(map: Map<string, Postings>, term: string, alive: (item: number) => boolean) {
  const list = map.get(term)!;
  list.live--;
  if (list.live === 0) map.delete(term);
  else if (list.items.length > 2 * list.live + 16) {
    const keep = list.items.map((item, i) => (alive(item) ? i : -1)).filter((i) => i >= 0);
    list.items = keep.map((i) => list.items[i]!);
    list.tf = keep.map((i) => list.tf[i]!);
  }
}

export const sum = (m: Map<string, number>) => {
  let n = 0;
  for (const v of m.values()) n += v;
  return n;
};
