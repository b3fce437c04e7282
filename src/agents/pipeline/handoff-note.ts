// What the customer is told when a person is asked to take over (README "Business hours"): inside
// the org's business hours (or when it set none), that a person will reply here; outside them,
// when people are next there, in the org's time zone.
import type { Deps } from "../../deps.ts";
import { type BusinessHours, describeOpening, nextOpening } from "../../kit/business-hours.ts";
import { orgBusinessHours } from "../../tenancy/orgs.ts";

export async function handoffAcknowledgement(deps: Pick<Deps, "db" | "now">, orgId: string, ticketNumber: number): Promise<string> {
  const asked = `I've asked a person from our team to take over (ticket #${ticketNumber}).`;
  const hours = ((await orgBusinessHours(deps.db, orgId)) as BusinessHours | null | undefined) ?? null;
  const now = deps.now();
  const opening = hours ? nextOpening(hours, now) : now;
  if (!opening || opening.getTime() === now.getTime()) return `${asked} They will reply here as soon as they can.`;
  return `${asked} Our team is away right now; a person will answer from ${describeOpening(hours!, opening)}.`;
}
