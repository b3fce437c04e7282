// Each org's knowledge state — its documents' version and synonyms (synonyms.ts `knowledgeState`)
// — cached per process, so a question (search_docs, a new session's chat turn) reads nothing when
// nothing changed (docs/decisions.md "The knowledge state, cached"). Exact after a change on
// every instance:
//   * every change counts itself in its own transaction (`knowledgeChanged`): here, the entry is
//     dropped at once and the org is read from the database, uncached, for CHANGE_QUIET_MS — so
//     a load that ran while the change was uncommitted never serves after it; everywhere, a NOTIFY
//     sent in that transaction (PostgreSQL delivers it at commit, not before) drops the entry and
//     starts the same quiet period on every instance, this one included;
//   * a load in flight at a drop is dropped with its entry;
//   * STATE_TTL_MS bounds what a lost notification leaves (an instance whose listening connection
//     was down), as for the other per-process caches (src/invalidation.ts).
import { sql } from "drizzle-orm";
import type { Db, Tx } from "../db/client.ts";
import { CHANNEL } from "../invalidation.ts";
import type { KnowledgeState, KnowledgeStates } from "../ports/caches.ts";

/** Without a notification, a change reaches every instance within this long. */
export const STATE_TTL_MS = 1000;
/** After a change is seen, the org's state is read from the database for this long. */
export const CHANGE_QUIET_MS = 1000;
const MAX_ORGS = 10_000;

export function createKnowledgeStates(now: () => number = Date.now): KnowledgeStates {
  const entries = new Map<string, { value: Promise<KnowledgeState>; until: number }>();
  const quietUntil = new Map<string, number>();
  return {
    get(orgId, load) {
      const at = now();
      const hit = entries.get(orgId);
      if (hit && hit.until > at) return hit.value;
      const quiet = quietUntil.get(orgId);
      if (quiet !== undefined) {
        if (quiet > at) return load();
        quietUntil.delete(orgId);
      }
      if (entries.size >= MAX_ORGS) for (const [key, entry] of entries) if (entry.until <= at || entries.size >= MAX_ORGS) entries.delete(key);
      const value = load();
      const entry = { value, until: at + STATE_TTL_MS };
      entries.set(orgId, entry);
      value.catch(() => entries.get(orgId) === entry && entries.delete(orgId));
      return value;
    },
    changing(orgId) {
      entries.delete(orgId);
      quietUntil.set(orgId, now() + CHANGE_QUIET_MS);
      if (quietUntil.size > MAX_ORGS) for (const [key, until] of quietUntil) if (until <= now()) quietUntil.delete(key);
    },
  };
}

/**
 * Counts a change to the org's knowledge state in the transaction `db` that makes it: dropped here
 * now, and on every instance (this one too) once it commits — a NOTIFY sent in a transaction is
 * delivered at its commit, and never when it rolls back (PostgreSQL NOTIFY).
 */
export async function knowledgeChanged(states: KnowledgeStates, db: Db | Tx, orgId: string): Promise<void> {
  states.changing(orgId);
  await db.execute(sql`select pg_notify(${CHANNEL}, ${JSON.stringify({ t: "knowledge", k: orgId })})`);
}
