// What a source's reader (website, Zendesk, Intercom) hands the sync: one result per page.
import type { knowledgeSourcePages } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import type { Extractor } from "./extract.ts";
import type { SourceRow } from "./model.ts";

export type PageRow = typeof knowledgeSourcePages.$inferSelect;

export type PageResult =
  | {
      kind: "content";
      url: string;
      title: string;
      body: string;
      tags?: string[];
      etag?: string | null;
      lastModified?: string | null;
      /** The page's language as the source names it (hreflang, the help centre's locale), ISO 639-1. */
      language?: string;
      /** What the page's versions in other languages share on this source (an article id, an hreflang cluster). */
      translationKey?: string;
    }
  | { kind: "unchanged"; url: string }
  | { kind: "gone"; url: string }
  | { kind: "failed"; url: string; reason: string };

export interface ReaderContext {
  deps: Pick<Deps, "cipher" | "config" | "guard" | "timers">;
  source: SourceRow;
  /** What the last syncs remembered, by URL. */
  pages: Map<string, PageRow>;
  signal: AbortSignal;
  extractor: Extractor;
  /** Called with each page as it is read; pages found so far, for progress. */
  emit(page: PageResult, found: number): Promise<void>;
}

/**
 * Reads every page; `complete` false when it read only part of the source (the page cap, a sitemap
 * not read completely), so unseen pages are not removed; `unread` says what was left and why, one line each.
 */
export type Reader = (ctx: ReaderContext) => Promise<{ complete: boolean; found: number; unread?: string[] }>;

/** A sync that cannot go on (the start page unreachable, robots.txt unreadable, an API refusing): it fails with this reason. */
export class SyncFailed extends Error {
  override name = "SyncFailed";
}
