// Who appears on the inbox pages: the org's members (the assignee filter, the triage form, the
// thread's authors) and a customer's label (a name, else what identifies them, a claim shown as one).
import type { Deps } from "../deps.ts";
import { memberDirectory } from "../tenancy/memberships.ts";

/** The org's members, for the assignee filter and the triage form. */
export async function orgMembers(deps: Pick<Deps, "db">, orgId: string): Promise<{ id: string; label: string }[]> {
  const rows = await memberDirectory(deps.db, orgId, 500);
  return rows.map((m) => ({ id: m.id, label: m.name ? `${m.name} <${m.email}>` : m.email }));
}

export function customerLabel(
  c: { name: string | null; email: string | null; external_id: string | null; claimed_external_id?: string; verified: boolean } | null | undefined,
): string {
  if (!c) return "—";
  return c.name || c.email || c.external_id || (c.claimed_external_id ? `claims ${c.claimed_external_id}` : "anonymous visitor");
}
