// Feature flags: per org, stored in orgs.feature_flags (written only by src/orgs/service.ts).
// Unknown names are rejected everywhere so a typo does not pass silently.
import { eq } from "drizzle-orm";
import { orgs } from "../db/schema/index.ts";
import type { Db } from "../db/client.ts";

/** Every feature flag the service knows, with what it switches on. */
export const FEATURE_FLAGS = {
  mcp_external_servers: "Connect third-party MCP servers and use their tools as agent actions.",
  mcp_destructive_tools: "Let MCP clients call tools marked destructive (with a token holding the matching write scope).",
} as const;
export type FeatureFlag = keyof typeof FEATURE_FLAGS;

export function isFeatureFlag(name: string): name is FeatureFlag {
  return Object.hasOwn(FEATURE_FLAGS, name);
}

/** The org's flags as stored (an unknown org has none). */
export async function readFlags(deps: { db: Db }, orgId: string): Promise<Record<string, boolean>> {
  const [org] = await deps.db.select({ flags: orgs.featureFlags }).from(orgs).where(eq(orgs.id, orgId));
  return org?.flags ?? {};
}

export async function flagEnabled(deps: { db: Db }, orgId: string, flag: FeatureFlag): Promise<boolean> {
  return (await readFlags(deps, orgId))[flag] === true;
}
