// Search of the help centre: the same in-memory index and query as the agent's (src/knowledge/
// tools.ts searchIndex: typos, joined and split words, the org's synonyms, snippets around the
// words), kept to the public articles; a search that finds none is recorded for the reports and
// the knowledge gaps (src/knowledge/help-signals.ts).
import type { Deps } from "../deps.ts";
import { requestMeta } from "../http/request-meta.ts";
import { recordSearchMiss } from "../knowledge/help-signals.ts";
import { type PublicDocHead, publicDocsAmong } from "../knowledge/public-docs.ts";
import { searchIndex } from "../knowledge/tools.ts";

export const HELP_SEARCH = {
  /** Characters of a query read; more is a 400 (pages show the box with maxlength). */
  query: 200,
  /** Results shown. */
  results: 10,
  /**
   * Index hits read before keeping the public ones: drafts and internal articles are never indexed as public, but published ones outside the public tags are.
   */
  candidates: 50,
} as const;

export interface HelpHit {
  id: string;
  title: string;
  language: string | null;
  /** The snippet with the query's words in `**`. */
  snippet: string;
}

export async function searchHelp(
  deps: Pick<Deps, "db" | "knowledge" | "passages" | "now" | "statements">,
  orgId: string,
  publicTags: readonly string[],
  query: string,
  options: { record: boolean; limit?: number; keep?: (doc: PublicDocHead) => boolean },
): Promise<HelpHit[]> {
  const text = query.trim();
  if (text === "" || publicTags.length === 0) return [];
  const hits = await searchIndex(deps, orgId, text, HELP_SEARCH.candidates);
  const visible = new Map(
    (
      await publicDocsAmong(
        deps,
        orgId,
        publicTags,
        hits.map((h) => h.id),
      )
    ).map((d) => [d.id, d]),
  );
  const kept = hits
    .filter((h) => visible.has(h.id) && (options.keep?.(visible.get(h.id)!) ?? true))
    .slice(0, options.limit ?? HELP_SEARCH.results)
    .map((h) => ({ id: h.id, title: h.title, language: visible.get(h.id)!.language, snippet: h.snippet }));
  if (kept.length === 0 && options.record) await recordSearchMiss(deps, orgId, text);
  return kept;
}

/** Searches recorded as "no result" per client address (the search itself is always answered). */
export const HELP_SEARCH_RECORDS = { limit: 60, windowSeconds: 60 } as const;

/** Whether a search by this client may be recorded: a flood of nonsense must not fill the reports. */
export async function mayRecordSearch(deps: Pick<Deps, "limiter" | "now">, orgId: string, request: Request): Promise<boolean> {
  return (await deps.limiter.take(`help_search:${orgId}:${requestMeta(request).ip}`, HELP_SEARCH_RECORDS, deps.now())).allowed;
}
