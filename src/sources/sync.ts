// One sync of a knowledge source (README "Knowledge sources"). The source is held by a lease
// (`lease_until`) so one process syncs it at a time; its reader lists and reads the pages; each
// page's doc is written through src/knowledge/source-docs.ts:
//   * new or changed text → the doc is created or updated (passages follow); a doc a person edited
//     is kept as it is and counted as a conflict;
//   * unchanged (304, or the same content hash) → nothing written;
//   * 404/410 → counted; at the second sync in a row its doc is removed;
//   * no longer listed (gone from the site's links or sitemap, excluded, disallowed) → removed,
//     but only after a complete read (not one cut short by the page cap).
// A sync that fails (its reader gives up, or it runs out of time) records the reason and removes
// nothing; so does one that read only part of the source (the page cap, a sitemap not read
// completely), which ends `ready` with what it left and why as its reason. Progress (pages done /
// found) is written as it goes. A source deleted during its sync (its docs and pages go with it)
// stops the sync quietly: nothing more is written for it, and nothing is logged as an error.
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { knowledgeSourcePages, knowledgeSources, type SourceCounts } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, messageOf } from "../errors.ts";
import { countOrgDocs, orgDocBytes, removeSourceDoc, sourceHash, writeSourceDoc } from "../knowledge/source-docs.ts";
import { createExtractor } from "./extract.ts";
import { EMPTY_COUNTS, type SourceRow, SYNC_LIMITS } from "./model.ts";
import { readHelpCentre } from "./help-centres.ts";
import { type PageResult, type PageRow, type Reader, SyncFailed } from "./reader.ts";
import { readWebsite } from "./website.ts";

const READERS: Record<SourceRow["kind"], Reader> = { website: readWebsite, zendesk: readHelpCentre, intercom: readHelpCentre };

/** The lease a running sync holds: its time limit and a minute more. */
const leaseUntil = (deps: Pick<Deps, "now">) => new Date(deps.now().getTime() + SYNC_LIMITS.syncTimeoutMs + 60_000);

/** Takes the source for a sync now, or 409 when a sync of it is running (`orgId` null: the command line, any org). */
export async function claimSource(deps: Pick<Deps, "db" | "now">, orgId: string | null, id: string): Promise<SourceRow> {
  const now = deps.now();
  const [row] = await deps.db
    .update(knowledgeSources)
    .set({ status: "syncing", leaseUntil: leaseUntil(deps), progress: { done: 0, found: 0 }, updatedAt: now })
    .where(
      and(
        orgId === null ? undefined : eq(knowledgeSources.orgId, orgId),
        eq(knowledgeSources.id, id),
        or(isNull(knowledgeSources.leaseUntil), lt(knowledgeSources.leaseUntil, now)),
      ),
    )
    .returning();
  if (!row) throw new AppError(409, "conflict", "This source is being synced already.");
  return row;
}

/** Claims due sources atomically (one UPDATE … FOR UPDATE SKIP LOCKED), so each runs once per interval across processes. */
export async function claimDueSources(deps: Pick<Deps, "db" | "now">, limit: number): Promise<SourceRow[]> {
  const now = deps.now();
  const due = deps.db
    .select({ id: knowledgeSources.id })
    .from(knowledgeSources)
    .where(
      and(
        sql`${knowledgeSources.nextSyncAt} <= ${now.toISOString()}::timestamptz`,
        or(isNull(knowledgeSources.leaseUntil), lt(knowledgeSources.leaseUntil, now)),
      ),
    )
    .orderBy(knowledgeSources.nextSyncAt)
    .limit(limit)
    .for("update", { skipLocked: true });
  return deps.db
    .update(knowledgeSources)
    .set({
      status: "syncing",
      leaseUntil: leaseUntil(deps),
      progress: { done: 0, found: 0 },
      nextSyncAt: sql`${now.toISOString()}::timestamptz + ${knowledgeSources.intervalSeconds} * interval '1 second'`,
    })
    .where(sql`${knowledgeSources.id} in ${due}`)
    .returning();
}

/** Runs a claimed source's sync to its end; never throws (the outcome is on the row). */
export async function runSync(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "knowledge" | "log" | "now" | "timers">,
  source: SourceRow,
  stop?: AbortSignal,
  onProgress?: (done: number, found: number) => void,
): Promise<SourceRow> {
  const counts: SourceCounts = { ...EMPTY_COUNTS };
  const pageRows = await deps.db.select().from(knowledgeSourcePages).where(eq(knowledgeSourcePages.sourceId, source.id));
  const pages = new Map(pageRows.map((p) => [p.url, p]));
  const seen = new Set<string>();
  const extractor = createExtractor();
  const deadline = deps.timers.deadline(SYNC_LIMITS.syncTimeoutMs);
  const gone = new AbortController();
  const signal = AbortSignal.any([deadline, gone.signal, ...(stop ? [stop] : [])]);
  const exists = async () => (await deps.db.select({ id: knowledgeSources.id }).from(knowledgeSources).where(eq(knowledgeSources.id, source.id))).length > 0;
  let done = 0;
  // The org's documents and their bytes, counted once and kept up to date as this sync adds some.
  const room: Room = {
    left: deps.config.knowledgeMaxDocsPerOrg - (await countOrgDocs(deps, source.orgId)),
    bytes: deps.config.knowledgeMaxBytesPerOrg - (await orgDocBytes(deps, source.orgId)),
  };
  const emit = async (page: PageResult, found: number) => {
    if (seen.has(page.url)) return;
    seen.add(page.url);
    try {
      await applyPage(deps, source, pages.get(page.url), page, counts, room);
    } catch (error) {
      // A write that found no source: it was deleted meanwhile. The readers stop at once.
      if (!(await exists())) gone.abort(new SourceDeleted());
      throw error;
    }
    done++;
    const still = await deps.db
      .update(knowledgeSources)
      .set({ progress: { done, found } })
      .where(eq(knowledgeSources.id, source.id))
      .returning({ id: knowledgeSources.id });
    if (still.length === 0) {
      gone.abort(new SourceDeleted());
      throw gone.signal.reason;
    }
    onProgress?.(done, found);
  };
  let failure: string | null = null;
  let incomplete: string | null = null;
  let deleted = false;
  try {
    const { complete, found, unread } = await READERS[source.kind]({ deps, source, pages, signal, extractor, emit });
    counts.found = found;
    if (!complete && unread?.length) incomplete = readInPart(unread);
    if (complete)
      for (const row of pageRows) {
        if (seen.has(row.url)) continue;
        if (row.docId && (await removeSourceDoc(deps, source.orgId, source.id, row.docId)) === "kept") {
          counts.conflicts++;
          await deps.db
            .update(knowledgeSourcePages)
            .set({ lastError: "no longer on the source; kept because it was edited locally" })
            .where(eq(knowledgeSourcePages.id, row.id));
          continue;
        }
        await deps.db.delete(knowledgeSourcePages).where(eq(knowledgeSourcePages.id, row.id));
        if (row.docId) counts.removed++;
      }
  } catch (error) {
    deleted = gone.signal.aborted || (!(error instanceof SyncFailed) && !signal.aborted && !(await exists().catch(() => true)));
    failure =
      error instanceof SyncFailed
        ? error.message
        : stop?.aborted
          ? "the server stopped during the sync"
          : deadline.aborted
            ? `the sync ran longer than ${SYNC_LIMITS.syncTimeoutMs / 60_000} minutes`
            : "the sync stopped on an internal error";
    if (!(error instanceof SyncFailed) && !signal.aborted && !deleted)
      deps.log.error("knowledge source sync failed", { source_id: source.id, error: messageOf(error) });
  } finally {
    extractor.close();
  }
  counts.found = Math.max(counts.found, done);
  if (deleted) return stopped(deps, source);
  const now = deps.now();
  const [row] = await deps.db
    .update(knowledgeSources)
    .set({
      status: failure ? "failed" : "ready",
      lastError: failure ?? incomplete,
      counts,
      progress: null,
      lastSyncAt: now,
      leaseUntil: null,
      nextSyncAt: new Date(now.getTime() + source.intervalSeconds * 1000),
      updatedAt: now,
    })
    .where(eq(knowledgeSources.id, source.id))
    .returning();
  if (!row) return stopped(deps, source);
  deps.log.info("knowledge source synced", { source_id: source.id, kind: source.kind, status: failure ? "failed" : "ready", ...counts });
  return row;
}

class SourceDeleted extends Error {
  override name = "SourceDeleted";
}

/** The source was deleted during its sync: nothing is left to record its outcome on. */
function stopped(deps: Pick<Deps, "log">, source: SourceRow): SourceRow {
  deps.log.info("knowledge source deleted during its sync; the sync stopped", { source_id: source.id });
  return source;
}

/** Why a sync read only part of its source, in one bounded line (the source's `reason` while `ready`). */
function readInPart(unread: string[]): string {
  const more = unread.length > 3 ? `; and ${unread.length - 3} more` : "";
  return `read in part, so nothing was removed: ${unread.slice(0, 3).join("; ")}${more}`.slice(0, 2000);
}

/** What the org may still take: documents, and bytes of document bodies (KNOWLEDGE_MAX_BYTES_PER_ORG). */
type Room = { left: number; bytes: number };

async function applyPage(
  deps: Pick<Deps, "config" | "db" | "knowledge" | "now">,
  source: SourceRow,
  known: PageRow | undefined,
  page: PageResult,
  counts: SourceCounts,
  room: Room,
): Promise<void> {
  const now = deps.now();
  const save = async (values: Partial<PageRow>) => {
    if (known)
      await deps.db
        .update(knowledgeSourcePages)
        .set({ ...values, seenAt: now })
        .where(eq(knowledgeSourcePages.id, known.id));
    else await deps.db.insert(knowledgeSourcePages).values({ sourceId: source.id, url: page.url, ...values, seenAt: now });
  };
  switch (page.kind) {
    case "unchanged":
      counts.unchanged++;
      return save({ misses: 0, lastError: null });
    case "failed":
      counts.failed++;
      return save({ lastError: page.reason });
    case "gone": {
      const misses = (known?.misses ?? 0) + 1;
      if (misses >= 2 && known?.docId) {
        const outcome = await removeSourceDoc(deps, source.orgId, source.id, known.docId);
        if (outcome === "kept") {
          counts.conflicts++;
          return save({ misses, lastError: "gone from the source; kept because it was edited locally" });
        }
        counts.removed++;
        await deps.db.delete(knowledgeSourcePages).where(eq(knowledgeSourcePages.id, known.id));
        return;
      }
      counts.failed++;
      return save({ misses, lastError: "the page answered 404 or 410 (its doc goes at the second time in a row)" });
    }
    case "content": {
      const hash = sourceHash(page.title, page.body);
      const validators = { etag: page.etag ?? null, lastModified: page.lastModified ?? null };
      if (known?.docId && known.contentHash === hash) {
        counts.unchanged++;
        return save({ ...validators, misses: 0, lastError: null });
      }
      // A new document takes its room before it is written: the two readers run side by side.
      const reserved = !known?.docId;
      if (reserved && room.left <= 0) {
        counts.failed++;
        return save({ lastError: `the organisation holds ${deps.config.knowledgeMaxDocsPerOrg} documents, the most a source may add to` });
      }
      // Its bytes too: what it grows by (a doc over the room keeps its previous text).
      const grows = Buffer.byteLength(page.body) - (known?.docId ? await orgDocBytes(deps, source.orgId, known.docId) : 0);
      if (grows > room.bytes) {
        counts.failed++;
        return save({
          lastError: `the organisation's documents would pass ${deps.config.knowledgeMaxBytesPerOrg} bytes, the most sources and uploads may bring in`,
        });
      }
      room.bytes -= grows;
      if (reserved) room.left--;
      const written = await writeSourceDoc(deps, source.orgId, source.id, known?.docId ?? null, {
        title: page.title,
        body: page.body,
        url: page.url,
        tags: page.tags,
        language: page.language,
        translationKey: page.translationKey,
      });
      if (written.outcome === "kept") {
        room.bytes += grows;
        counts.conflicts++;
        // The hash stays the old one, so the next sync sees the change again and reports it again.
        return save({ misses: 0, lastError: "changed on the source; kept because it was edited locally" });
      }
      counts[written.outcome === "created" ? "imported" : "updated"]++;
      if (reserved && written.outcome !== "created") room.left++;
      return save({ ...validators, docId: written.doc.id, contentHash: hash, misses: 0, lastError: null });
    }
  }
}
