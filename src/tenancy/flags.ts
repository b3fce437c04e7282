// The org's feature flags as the rooms above read them; the catalogue of names is src/kit/flags.ts,
// the switch is src/orgs/service.ts setFeatureFlag (through ./orgs.ts setStoredFlag).
import { eq } from "drizzle-orm";
import type { Conn } from "../db/client.ts";
import { orgs } from "../db/schema/index.ts";
import type { FeatureFlag } from "../kit/flags.ts";

/** The org's flags as stored (an unknown org has none). */
export async function readFlags(deps: { db: Conn }, orgId: string): Promise<Record<string, boolean>> {
  const [org] = await deps.db.select({ flags: orgs.featureFlags }).from(orgs).where(eq(orgs.id, orgId));
  return org?.flags ?? {};
}

export async function flagEnabled(deps: { db: Conn }, orgId: string, flag: FeatureFlag): Promise<boolean> {
  return (await readFlags(deps, orgId))[flag] === true;
}
