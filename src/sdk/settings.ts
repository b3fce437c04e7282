// The org's allowed browser origins for its widget keys, read by src/sdk/auth.ts
// and set by admins (role org:manage) through src/sdk/settings-routes.ts.
import { eq } from "drizzle-orm";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { widgetSettings } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { normaliseOrigin } from "./auth.ts";

export const ORIGIN_LIMITS = {
  /** Allowed origins per org. */
  origins: 50,
} as const;

export async function allowedOrigins(deps: Pick<Deps, "db">, orgId: string): Promise<{ allowed_origins: string[] }> {
  const [row] = await deps.db.select({ origins: widgetSettings.allowedOrigins }).from(widgetSettings).where(eq(widgetSettings.orgId, orgId));
  return { allowed_origins: row?.origins ?? [] };
}

/** Replaces the list. Each entry must be an http(s) origin without path; stored serialised (lower-case host, no default port). An empty list allows every origin. */
export async function setAllowedOrigins(deps: Pick<Deps, "db" | "invalidation" | "now">, orgId: string, actor: Actor, origins: string[]) {
  const normalised: string[] = [];
  for (const [i, origin] of origins.entries()) {
    const value = normaliseOrigin(origin);
    if (value === null)
      throw AppError.badRequest("Each allowed origin must be scheme://host[:port], without a path.", [
        { path: `/allowed_origins/${i}`, message: "must be an http(s) origin such as https://shop.example" },
      ]);
    if (!normalised.includes(value)) normalised.push(value);
  }
  const now = deps.now();
  await deps.db
    .insert(widgetSettings)
    .values({ orgId, allowedOrigins: normalised, updatedAt: now })
    .onConflictDoUpdate({ target: widgetSettings.orgId, set: { allowedOrigins: normalised, updatedAt: now } });
  deps.invalidation.publish("widget_keys", orgId);
  await recordActivity(deps, { orgId, actor, action: "widget_origins.updated", objectType: "org", objectId: orgId, summary: { count: normalised.length } });
  return { allowed_origins: normalised };
}

/** Whether the AI keeps answering while a person owns a conversation (README "Live conversation"; default no). */
export async function handoffSetting(deps: Pick<Deps, "db">, orgId: string): Promise<{ ai_answers_during_handoff: boolean }> {
  const [row] = await deps.db.select({ on: widgetSettings.aiAnswersDuringHandoff }).from(widgetSettings).where(eq(widgetSettings.orgId, orgId));
  return { ai_answers_during_handoff: row?.on ?? false };
}

export async function setHandoffSetting(deps: Pick<Deps, "db" | "now">, orgId: string, actor: Actor, on: boolean) {
  const now = deps.now();
  await deps.db
    .insert(widgetSettings)
    .values({ orgId, allowedOrigins: [], aiAnswersDuringHandoff: on, updatedAt: now })
    .onConflictDoUpdate({ target: widgetSettings.orgId, set: { aiAnswersDuringHandoff: on, updatedAt: now } });
  await recordActivity(deps, {
    orgId,
    actor,
    action: "widget_handoff.updated",
    objectType: "org",
    objectId: orgId,
    summary: { ai_answers_during_handoff: on },
  });
  return { ai_answers_during_handoff: on };
}
