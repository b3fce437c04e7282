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

/** Adds (`sign` 1) or takes away (-1) counts by key; a key whose count reaches 0 is dropped. */
export function addCounts(target: Map<string, number>, counts: ReadonlyMap<string, number>, sign: 1 | -1): void {
  for (const [key, n] of counts) {
    const left = (target.get(key) ?? 0) + sign * n;
    if (left > 0) target.set(key, left);
    else target.delete(key);
  }
}
