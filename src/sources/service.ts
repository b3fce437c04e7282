// Knowledge sources, the dashboard and API verbs: create, list, read, change, delete, sync now.
// Every change is made by an actor and recorded in the activity log; a source's docs go with it
// (docs.source_id references the source, ON DELETE CASCADE). The sync itself is src/sources/sync.ts.
import { and, count, desc, eq, isNotNull } from "drizzle-orm";
import { recordActivity } from "../activity/log.ts";
import { knowledgeSourcePages, knowledgeSources } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { Actor } from "../kit/actor.ts";
import { isUuid } from "../kit/ids.ts";
import { checkUrl } from "../net/guard.ts";
import type { ErrorDetail } from "../errors.ts";
import { checkSource, type SourceInput, SOURCE_LIMITS, type SourceRow } from "./model.ts";

const tokenContext = (id: string) => `knowledge_sources.credentials.token:${id}`;

export function sourceToken(deps: Pick<Deps, "cipher">, row: SourceRow): string | null {
  return row.credentials.token ? deps.cipher.decrypt(row.credentials.token, tokenContext(row.id)) : null;
}

/** What the activity log keeps of a source: never credentials, of a URL only its host. */
function described(row: SourceRow) {
  const url = row.settings.start_url ?? row.settings.base_url;
  return { kind: row.kind, name: row.name, ...(url ? { host: new URL(url).host } : {}) };
}

/** The address resolved and checked by the outbound guard now, so a private one is refused before any sync. */
async function checkAddress(deps: Pick<Deps, "guard">, input: SourceInput, problems: ErrorDetail[]) {
  const [path, url] = input.kind === "website" ? ["/start_url", input.start_url] : ["/base_url", input.base_url];
  if (!url || problems.some((p) => p.path === path)) return;
  try {
    await checkUrl(url, deps.guard);
  } catch (error) {
    problems.push({ path, message: (error as Error).message });
  }
}

export async function createSource(deps: Pick<Deps, "cipher" | "db" | "guard" | "now">, orgId: string, actor: Actor, input: SourceInput): Promise<SourceRow> {
  const { problems, settings } = checkSource(input, deps.guard.allowLoopback);
  await checkAddress(deps, input, problems);
  if (input.interval_seconds !== undefined && (input.interval_seconds < SOURCE_LIMITS.minInterval || input.interval_seconds > SOURCE_LIMITS.maxInterval))
    problems.push({ path: "/interval_seconds", message: `must be ${SOURCE_LIMITS.minInterval} to ${SOURCE_LIMITS.maxInterval}` });
  if (problems.length > 0) throw AppError.badRequest("The source is invalid.", problems);
  const [{ n }] = (await deps.db.select({ n: count() }).from(knowledgeSources).where(eq(knowledgeSources.orgId, orgId))) as [{ n: number }];
  if (Number(n) >= SOURCE_LIMITS.perOrg) throw new AppError(409, "limit_reached", `An organisation has at most ${SOURCE_LIMITS.perOrg} knowledge sources.`);
  const id = crypto.randomUUID();
  const now = deps.now();
  const [row] = (await deps.db
    .insert(knowledgeSources)
    .values({
      id,
      orgId,
      kind: input.kind,
      name: input.name.trim(),
      settings,
      credentials: input.token ? { token: deps.cipher.encrypt(input.token, tokenContext(id)) } : {},
      intervalSeconds: input.interval_seconds ?? SOURCE_LIMITS.defaultInterval,
      // The first sync is due at once: the scheduler (or "sync now") picks it up.
      nextSyncAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .returning()) as [SourceRow];
  await recordActivity(deps, { orgId, actor, action: "knowledge_source.created", objectType: "knowledge_source", objectId: id, summary: described(row) });
  return row;
}

export async function listSources(deps: Pick<Deps, "db">, orgId: string): Promise<SourceRow[]> {
  return deps.db.select().from(knowledgeSources).where(eq(knowledgeSources.orgId, orgId)).orderBy(desc(knowledgeSources.createdAt));
}

/** Whether a source exists, whichever org has it (the command line acts for the operator). */
export async function sourceExists(deps: Pick<Deps, "db">, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const [row] = await deps.db.select({ id: knowledgeSources.id }).from(knowledgeSources).where(eq(knowledgeSources.id, id));
  return Boolean(row);
}

export async function getSource(deps: Pick<Deps, "db">, orgId: string, id: string): Promise<SourceRow> {
  if (!isUuid(id)) throw AppError.notFound("No such knowledge source.");
  const [row] = await deps.db
    .select()
    .from(knowledgeSources)
    .where(and(eq(knowledgeSources.orgId, orgId), eq(knowledgeSources.id, id)));
  if (!row) throw AppError.notFound("No such knowledge source.");
  return row;
}

export type SourcePatch = Partial<Omit<SourceInput, "kind">>;

export async function updateSource(
  deps: Pick<Deps, "cipher" | "db" | "guard" | "now">,
  orgId: string,
  actor: Actor,
  id: string,
  patch: SourcePatch,
): Promise<SourceRow> {
  const row = await getSource(deps, orgId, id);
  const merged: SourceInput = {
    kind: row.kind,
    name: patch.name ?? row.name,
    start_url: patch.start_url ?? row.settings.start_url,
    base_url: patch.base_url ?? row.settings.base_url,
    locale: patch.locale ?? row.settings.locale,
    locales: patch.locales ?? row.settings.locales,
    languages: patch.languages ?? row.settings.languages,
    include: patch.include ?? row.settings.include,
    exclude: patch.exclude ?? row.settings.exclude,
    max_pages: patch.max_pages ?? row.settings.max_pages,
    // The stored token stands unless a new one is given.
    token: patch.token ?? (row.kind === "intercom" ? "stored" : undefined),
  };
  const { problems, settings } = checkSource(merged, deps.guard.allowLoopback);
  if (patch.start_url !== undefined || patch.base_url !== undefined) await checkAddress(deps, merged, problems);
  if (patch.interval_seconds !== undefined && (patch.interval_seconds < SOURCE_LIMITS.minInterval || patch.interval_seconds > SOURCE_LIMITS.maxInterval))
    problems.push({ path: "/interval_seconds", message: `must be ${SOURCE_LIMITS.minInterval} to ${SOURCE_LIMITS.maxInterval}` });
  if (problems.length > 0) throw AppError.badRequest("The source is invalid.", problems);
  const [updated] = (await deps.db
    .update(knowledgeSources)
    .set({
      name: merged.name.trim(),
      settings,
      ...(patch.token ? { credentials: { token: deps.cipher.encrypt(patch.token, tokenContext(id)) } } : {}),
      ...(patch.interval_seconds ? { intervalSeconds: patch.interval_seconds } : {}),
      updatedAt: deps.now(),
    })
    .where(and(eq(knowledgeSources.orgId, orgId), eq(knowledgeSources.id, id)))
    .returning()) as [SourceRow];
  await recordActivity(deps, { orgId, actor, action: "knowledge_source.updated", objectType: "knowledge_source", objectId: id, summary: described(updated) });
  return updated;
}

/** Deletes the source and, with it, every doc it owns (also the ones edited locally). */
export async function deleteSource(deps: Pick<Deps, "db" | "now">, orgId: string, actor: Actor, id: string): Promise<void> {
  const row = await getSource(deps, orgId, id);
  await deps.db.delete(knowledgeSources).where(and(eq(knowledgeSources.orgId, orgId), eq(knowledgeSources.id, id)));
  await recordActivity(deps, { orgId, actor, action: "knowledge_source.deleted", objectType: "knowledge_source", objectId: id, summary: described(row) });
}

/** Pages the last sync could not import or kept because they were edited locally (at most 100). */
export async function sourceProblems(deps: Pick<Deps, "db">, sourceId: string) {
  const rows = await deps.db
    .select({ url: knowledgeSourcePages.url, reason: knowledgeSourcePages.lastError, docId: knowledgeSourcePages.docId })
    .from(knowledgeSourcePages)
    .where(and(eq(knowledgeSourcePages.sourceId, sourceId), isNotNull(knowledgeSourcePages.lastError)))
    .orderBy(desc(knowledgeSourcePages.seenAt))
    .limit(100);
  return rows.map((r) => ({ url: r.url, reason: r.reason!, doc_id: r.docId }));
}
