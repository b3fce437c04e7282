// What the customer is told when a person is asked to take over (README "Business hours"): inside
// the org's business hours (or when it set none), that a person will reply here; outside them,
// when people are next there, in the org's time zone.
import type { Deps } from "../../deps.ts";
import { type BusinessHours, nextOpening, openingParts } from "../../kit/business-hours.ts";
import { orgBusinessHours } from "../../tenancy/orgs.ts";
import type { Texts } from "../../texts/store.ts";

export async function handoffAcknowledgement(deps: Pick<Deps, "db" | "now">, orgId: string, ticketNumber: number, texts: Texts): Promise<string> {
  const asked = texts.t("agent.handoff_asked", { number: String(ticketNumber) });
  const hours = ((await orgBusinessHours(deps.db, orgId)) as BusinessHours | null | undefined) ?? null;
  const now = deps.now();
  const opening = hours ? nextOpening(hours, now) : now;
  if (!opening || opening.getTime() === now.getTime()) return `${asked} ${texts.t("agent.handoff_soon")}`;
  return `${asked} ${texts.t("agent.handoff_away", openingParts(hours!, opening, texts.language))}`;
}
