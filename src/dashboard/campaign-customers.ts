// A customer named in a campaign form (enrol, remove, preview): as the API names them (our id, or
// the org's external id), or by email address, the dashboard's own convenience.
import type { Deps } from "../deps.ts";
import { type EndUser, findEndUser, findEndUserByEmail } from "../customers/records.ts";

/** The longest customer reference a form accepts: the API's (src/campaigns/routes.ts CustomerRef). */
export const CUSTOMER_REF_MAX = 256;

/**
 * A customer of this org named as the API names them (our id, or the org's external id), or by
 * email address: the dashboard's own convenience (the verified record wins, src/customers).
 */
export async function customerByRef(deps: Pick<Deps, "db">, orgId: string, ref: string): Promise<EndUser | null> {
  return (await findEndUser(deps, orgId, ref)) ?? (ref.includes("@") ? await findEndUserByEmail(deps, orgId, ref) : null);
}

/** The text of a customer field: trimmed, with the error to show when it cannot name anyone. */
export function customerRef(raw: string | undefined): { ref: string; error?: string } {
  const ref = (raw ?? "").trim();
  if (ref === "") return { ref, error: "Name a customer: their email address, our id or your external id." };
  if (ref.length > CUSTOMER_REF_MAX) return { ref, error: `At most ${CUSTOMER_REF_MAX} characters (this has ${ref.length}).` };
  return { ref };
}

export function customerLabel(user: { name?: string | null; email?: string | null }): string {
  return user.name || user.email || "a customer";
}
