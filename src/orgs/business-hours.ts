// An org's business hours (README "Business hours"; the value and its arithmetic: src/kit/business-hours.ts):
// read, set (validated: an IANA zone through Intl, HH:MM intervals, real dates) or cleared (null:
// no hours, so nothing promises a time). Every change is in the activity log.
import { recordActivity } from "../activity/log.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { Actor } from "../kit/actor.ts";
import { type BusinessHours, businessHoursProblems } from "../kit/business-hours.ts";
import { orgBusinessHours, updateOrg } from "../tenancy/orgs.ts";

export async function getBusinessHours(deps: Pick<Deps, "db">, orgId: string): Promise<BusinessHours | null> {
  const hours = await orgBusinessHours(deps.db, orgId);
  if (hours === undefined) throw AppError.notFound("No such organisation.");
  return (hours as BusinessHours | null) ?? null;
}

/** Sets the hours (400 with a detail per problem) or clears them with null. */
export async function setBusinessHours(
  deps: Pick<Deps, "db" | "now">,
  orgId: string,
  actor: Actor,
  hours: BusinessHours | null,
): Promise<BusinessHours | null> {
  if (hours) {
    const problems = businessHoursProblems(hours);
    if (problems.length > 0) throw AppError.badRequest("The business hours are not valid.", problems);
  }
  const value = hours ? { time_zone: hours.time_zone, weekly: hours.weekly, holidays: [...new Set(hours.holidays)].sort() } : null;
  await deps.db.transaction(async (tx) => {
    if (!(await updateOrg(tx, orgId, { businessHours: value as Record<string, unknown> | null, updatedAt: deps.now() })))
      throw AppError.notFound("No such organisation.");
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId,
        actor,
        action: value ? "business_hours.set" : "business_hours.cleared",
        objectType: "org",
        objectId: orgId,
        summary: value ? { time_zone: value.time_zone } : {},
      },
    );
  });
  return value;
}
