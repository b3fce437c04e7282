// The org's feature flags as the rooms above read them; the catalogue of names is src/kit/flags.ts,
// the switch is src/orgs/service.ts setFeatureFlag.
import type { Conn } from "../db/client.ts";
import type { FeatureFlag } from "../kit/flags.ts";
import { storedFlags } from "./orgs.ts";

/** The org's flags as stored (an unknown org has none). */
export async function readFlags(deps: { db: Conn }, orgId: string): Promise<Record<string, boolean>> {
  return storedFlags(deps.db, orgId);
}

export async function flagEnabled(deps: { db: Conn }, orgId: string, flag: FeatureFlag): Promise<boolean> {
  return (await readFlags(deps, orgId))[flag] === true;
}
