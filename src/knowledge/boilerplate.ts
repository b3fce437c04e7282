// Text repeated across many pages of one org's knowledge — footers ("Still stuck? Contact
// support … Back to all articles"), related-article lists, cookie notes, breadcrumbs — is not
// knowledge (docs/decisions.md "Boilerplate is not knowledge"). The lexical index
// (src/knowledge/lexical.ts) counts, for every line of a page body, on how many pages that line
// stands (normalized: case, markdown link targets and punctuation ignored); a line on at least
// REPEATED.minPages pages and at least REPEATED.share of them is boilerplate: the index leaves it
// out of the page's passages, of what it scores and of what it quotes. Pure: no I/O.
import { isContent, words } from "../kit/words.ts";

export const REPEATED = {
  /** Pages a line must stand on, at the least, to be boilerplate (two pages may share a paragraph by design). */
  minPages: 3,
  /** …and the share of the index's pages it must stand on (a sentence shared by a handful of a large help centre's articles is still theirs). */
  share: 0.05,
} as const;

/** The pages a line must stand on to be boilerplate, in an index of `pages` pages. */
export function repeatedThreshold(pages: number): number {
  return Math.max(REPEATED.minPages, Math.ceil(REPEATED.share * pages));
}

/**
 * The key of a body line: its words, lower-cased, without markdown markers, link targets or
 * punctuation, hashed (64 bits) so the count holds no customer text twice; none for a line
 * without a content word (a rule, a bullet, "Yes").
 */
export function lineKey(line: string): string | undefined {
  const text = line
    .toLowerCase()
    .replace(/\]\([^)]*\)/g, "]")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
  if (text === "" || !words(text).some(isContent)) return undefined;
  return Bun.hash(text).toString(36);
}

/**
 * A body's line keys, and the body without its boilerplate lines (the same string when it has
 * none). A heading is structure, not content ("## How do I apply?" heads different answers on many
 * pages): it goes only with its whole section — when it is boilerplate and no line under it (up to
 * the next heading of its level or above) is kept.
 */
export function keptBody(body: string, dropped: (key: string) => boolean): { keys: Set<string>; kept: string; left: string } {
  const lines = body.split(/\r?\n/);
  const keys = lines.map(lineKey);
  const drop = lines.map((_, i) => keys[i] !== undefined && dropped(keys[i]!));
  // Backwards: content[l] says whether a kept line stands between here and the next heading of level l or above.
  const content = new Array<boolean>(7).fill(false);
  for (let i = lines.length - 1; i >= 0; i--) {
    const level = /^(#{1,6})\s/.exec(lines[i]!)?.[1]!.length;
    if (level === undefined) {
      if (!drop[i] && keys[i] !== undefined) content.fill(true);
      continue;
    }
    if (content[level]) drop[i] = false;
    // The heading closes the sections of its level and below; kept, it is content of those above.
    for (let l = level; l <= 6; l++) content[l] = false;
    if (!drop[i]) for (let l = 1; l < level; l++) content[l] = true;
  }
  const set = new Set<string>();
  for (const key of keys) if (key !== undefined) set.add(key);
  if (!drop.includes(true)) return { keys: set, kept: body, left: "" };
  return {
    keys: set,
    kept: lines
      .filter((_, i) => !drop[i])
      .join("\n")
      .replace(/\n{3,}/g, "\n\n"),
    left: lines.filter((_, i) => drop[i]).join("\n"),
  };
}

/**
 * The terms of the lines left out as boilerplate, counted by page: which words of a question the
 * knowledge base says only in its page furniture (a knowledge gap: src/knowledge/gaps.ts). Kept
 * exact by the index, which adds a page's terms when it indexes the page and removes them when it
 * drops it (every page whose lines change state is indexed again: RepeatedLines).
 */
export class FurnitureTerms {
  private readonly pages = new Map<string, number>();
  add(terms: Iterable<string>): void {
    for (const t of terms) this.pages.set(t, (this.pages.get(t) ?? 0) + 1);
  }
  remove(terms: Iterable<string>): void {
    for (const t of terms) {
      const n = (this.pages.get(t) ?? 0) - 1;
      if (n > 0) this.pages.set(t, n);
      else this.pages.delete(t);
    }
  }
  has(term: string): boolean {
    return this.pages.has(term);
  }
}

interface Line {
  /** Page numbers it stands on. */
  pages: Set<number>;
  /** Whether the pages holding it are indexed without it. */
  dropped: boolean;
}

/**
 * The lines of an index's pages and the pages each stands on. Invariant between the index's
 * calls: every page holding a line is indexed with the line dropped exactly when the line stands
 * on `repeatedThreshold(pages)` pages or more — so the index is what indexing its pages afresh
 * gives, whatever the order of puts and removes.
 */
export class RepeatedLines {
  private readonly lines = new Map<string, Line>();
  private threshold = repeatedThreshold(0);

  /** Counts page `page`'s distinct line keys. */
  add(page: number, keys: Iterable<string>): void {
    for (const key of keys) {
      let line = this.lines.get(key);
      if (!line) this.lines.set(key, (line = { pages: new Set(), dropped: false }));
      line.pages.add(page);
    }
  }

  remove(page: number, keys: Iterable<string>): void {
    for (const key of keys) {
      const line = this.lines.get(key);
      if (!line) continue;
      line.pages.delete(page);
      if (line.pages.size === 0) this.lines.delete(key);
    }
  }

  /** Whether pages index the line without it now. */
  dropped(key: string): boolean {
    return this.lines.get(key)?.dropped ?? false;
  }

  /**
   * After a page with `keys` was added or removed, the index now holding `pages` pages: the lines
   * whose state changes (those keys, or every line when the threshold moved), switched, and the
   * pages holding them, which the index must index again.
   */
  settle(pages: number, keys: Iterable<string>): Set<number> {
    const threshold = repeatedThreshold(pages);
    const candidates = threshold === this.threshold ? keys : this.lines.keys();
    this.threshold = threshold;
    const again = new Set<number>();
    for (const key of candidates) {
      const line = this.lines.get(key);
      if (!line || line.dropped === line.pages.size >= threshold) continue;
      line.dropped = !line.dropped;
      for (const p of line.pages) again.add(p);
    }
    return again;
  }
}
