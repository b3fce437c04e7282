// The admin activity log: every state-changing dashboard or API function records
// who acted (member, token, customer or system), what (`action`), on which object, with a short
// before/after summary. Admins (org:manage) list it newest first; housekeeping deletes rows older
// than ACTIVITY_RETENTION_DAYS. This file is the only writer of activity_log.
import { and, eq, lt, type SQL } from "drizzle-orm";
import { afterRow, decodeCursor, type KeysetOrder, newestFirst, pageOf } from "../db/keyset.ts";
import { activityLog } from "../db/schema/index.ts";
import { memberCards } from "../tenancy/members.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { Actor } from "../kit/actor.ts";

export interface ActivityInput {
  orgId: string;
  actor: Actor;
  /** `<object>.<verb>`, e.g. `connector.created`, `feature_flag.changed`, `oauth_grant.revoked`. */
  action: string;
  objectType: string;
  objectId: string;
  summary?: Record<string, unknown>;
}

/** Anything with a `db` that can insert: deps.db or a transaction, so the record commits with the change. */
type Writer = Pick<Deps, "db" | "now">;

function actorColumns(actor: Actor) {
  switch (actor.kind) {
    case "member":
      return { actorKind: actor.kind, actorId: actor.memberId, memberId: actor.memberId, clientId: null };
    case "token":
      return { actorKind: actor.kind, actorId: actor.tokenId, memberId: actor.memberId, clientId: actor.clientId };
    case "customer":
      return { actorKind: actor.kind, actorId: actor.endUserId ?? actor.sessionId ?? "anonymous", memberId: null, clientId: null };
    case "system":
      return { actorKind: actor.kind, actorId: actor.name, memberId: null, clientId: null };
  }
}

export async function recordActivity(deps: Writer, input: ActivityInput): Promise<void> {
  await deps.db.insert(activityLog).values({
    // Time-ordered and monotonic within a process: the list's tie-break for rows of one millisecond.
    id: Bun.randomUUIDv7(),
    orgId: input.orgId,
    ...actorColumns(input.actor),
    action: input.action,
    objectType: input.objectType,
    objectId: input.objectId,
    summary: input.summary ?? {},
    createdAt: deps.now(),
  });
}

export const ACTIVITY_PAGE = { default: 50, max: 100 };

export interface ActivityQuery {
  cursor?: string;
  limit?: number;
  action?: string;
  objectType?: string;
  objectId?: string;
}

const ORDER: KeysetOrder = { table: activityLog, scope: activityLog.orgId, id: activityLog.id, keys: [activityLog.createdAt, activityLog.id] };

/** Newest first, keyset-paginated on (created_at, id) so pages stay stable while rows are added. */
export async function listActivity(deps: Pick<Deps, "db">, orgId: string, query: ActivityQuery) {
  const limit = query.limit ?? ACTIVITY_PAGE.default;
  const where: SQL[] = [eq(activityLog.orgId, orgId)];
  if (query.action !== undefined) where.push(eq(activityLog.action, query.action));
  if (query.objectType !== undefined) where.push(eq(activityLog.objectType, query.objectType));
  if (query.objectId !== undefined) where.push(eq(activityLog.objectId, query.objectId));
  if (query.cursor !== undefined) {
    const after = decodeCursor(query.cursor);
    if (!after) throw AppError.badCursor();
    where.push(afterRow(ORDER, orgId, after));
  }
  const rows = await deps.db
    .select({ row: activityLog, email: memberCards.email, name: memberCards.name })
    .from(activityLog)
    .leftJoin(memberCards, eq(memberCards.id, activityLog.memberId))
    .where(and(...where))
    .orderBy(...newestFirst(ORDER))
    .limit(limit + 1);
  const { page, nextCursor } = pageOf(rows, limit, (r) => r.row.id);
  return {
    items: page.map(({ row, email, name }) => ({
      id: row.id,
      action: row.action,
      object_type: row.objectType,
      object_id: row.objectId,
      actor: {
        kind: row.actorKind,
        id: row.actorId,
        member: row.memberId ? { id: row.memberId, email: email ?? null, name: name ?? null } : null,
        client_id: row.clientId,
      },
      summary: row.summary,
      created_at: row.createdAt.toISOString(),
    })),
    next_cursor: nextCursor,
  };
}

/** Housekeeping: rows older than the retention setting go. */
export async function deleteExpiredActivity(deps: Pick<Deps, "config" | "db" | "now">): Promise<void> {
  const cutoff = new Date(deps.now().getTime() - deps.config.activityRetentionDays * 86_400_000);
  await deps.db.delete(activityLog).where(lt(activityLog.createdAt, cutoff));
}
