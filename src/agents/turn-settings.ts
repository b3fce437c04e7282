// What every chat turn reads of its org's settings — the org's agents and its model override —
// cached per process, exact after a change on every instance (docs/decisions.md "Chat turn
// caches"): every write of either (src/agents/service.ts, src/agents/llm-settings.ts) publishes
// `org_settings` for the org once it has committed, which drops the entry here at once and in
// every other instance through NOTIFY (src/invalidation.ts), and voids a load begun before it
// (src/kit/fresh-cache.ts). The TTL bounds what a lost notification leaves, as for the tool
// snapshot and the widget keys.
import { asc, eq } from "drizzle-orm";
import { agents, orgLlmSettings } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import type { Invalidation } from "../invalidation.ts";
import { createFreshCache, type FreshCache } from "../kit/fresh-cache.ts";
import { isUuid } from "../kit/ids.ts";
import type { Agent } from "./service.ts";

/** Without a notification, a change reaches every instance within this long. */
export const TURN_SETTINGS_TTL_MS = 1000;

export type OrgLlmRow = typeof orgLlmSettings.$inferSelect;

export interface OrgTurnSettings {
  /** Every agent of the org, whatever its status, oldest first (as listAgents). */
  agents: Agent[];
  /** The org's model override, or null (the operator's). */
  llm: OrgLlmRow | null;
}

export type TurnSettingsCache = FreshCache<OrgTurnSettings>;

export function createTurnSettings(deps: Pick<Deps, "db" | "now">, invalidation: Invalidation): TurnSettingsCache {
  const cache = createFreshCache<OrgTurnSettings>({
    ttlMs: TURN_SETTINGS_TTL_MS,
    aheadMs: TURN_SETTINGS_TTL_MS / 4,
    maxEntries: 10_000,
    now: () => deps.now().getTime(),
    load: async (orgId) => {
      const [list, llm] = await Promise.all([
        deps.db.select().from(agents).where(eq(agents.orgId, orgId)).orderBy(asc(agents.createdAt), asc(agents.id)),
        deps.db.select().from(orgLlmSettings).where(eq(orgLlmSettings.orgId, orgId)),
      ]);
      return { agents: list, llm: llm[0] ?? null };
    },
  });
  invalidation.subscribe("org_settings", (orgId) => cache.delete(orgId));
  return cache;
}

/** As getAgent (src/agents/service.ts) on the cached list: the pinned agent unless disabled, else the active one; null when none. */
export function agentOf(settings: OrgTurnSettings, agentId?: string | null): Agent | null {
  if (agentId !== undefined && agentId !== null) {
    if (!isUuid(agentId)) return null;
    return settings.agents.find((a) => a.id === agentId && a.status !== "disabled") ?? null;
  }
  return settings.agents.find((a) => a.status === "active") ?? null;
}
