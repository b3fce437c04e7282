// The org's CSAT settings (README "CSAT"): whether a resolved ticket's customer is asked for a
// rating, and the question asked. GET and PUT /api/widget/csat (role org:manage to change).
import { eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import { recordActivity } from "../activity/log.ts";
import { requireMember } from "../auth/guard.ts";
import { widgetSettings as settingsTable } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { memberActor } from "../kit/actor.ts";

export const DEFAULT_CSAT_QUESTION = "How would you rate the help you received?";
export const CSAT_QUESTION_MAX = 200;

export interface CsatSettings {
  csat_enabled: boolean;
  csat_question: string;
}

export async function csatSettings(deps: Pick<Deps, "db">, orgId: string): Promise<CsatSettings> {
  const [row] = await deps.db
    .select({ on: settingsTable.csatEnabled, question: settingsTable.csatQuestion })
    .from(settingsTable)
    .where(eq(settingsTable.orgId, orgId));
  return { csat_enabled: row?.on ?? true, csat_question: row?.question || DEFAULT_CSAT_QUESTION };
}

export async function setCsatSettings(
  deps: Pick<Deps, "db" | "now">,
  orgId: string,
  actor: Parameters<typeof recordActivity>[1]["actor"],
  input: { csat_enabled: boolean; csat_question?: string | null },
): Promise<CsatSettings> {
  const now = deps.now();
  const question = input.csat_question?.trim() || null;
  await deps.db
    .insert(settingsTable)
    .values({ orgId, allowedOrigins: [], csatEnabled: input.csat_enabled, csatQuestion: question, updatedAt: now })
    .onConflictDoUpdate({ target: settingsTable.orgId, set: { csatEnabled: input.csat_enabled, csatQuestion: question, updatedAt: now } });
  await recordActivity(deps, {
    orgId,
    actor,
    action: "widget_csat.updated",
    objectType: "org",
    objectId: orgId,
    summary: { csat_enabled: input.csat_enabled },
  });
  return csatSettings(deps, orgId);
}

const Settings = t.Object({ csat_enabled: t.Boolean(), csat_question: t.String() });

export function csatSettingsRoutes(deps: Pick<Deps, "config" | "db" | "now">) {
  return new Elysia({ name: "csat-settings" })
    .get(
      "/api/widget/csat",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "agents:view");
        return csatSettings(deps, orgId);
      },
      { response: Settings, detail: { tags: ["Widget settings"], summary: "Whether a resolved ticket's customer is asked for a rating, and the question" } },
    )
    .put(
      "/api/widget/csat",
      async ({ request, body }) => {
        const { orgId, principal } = await requireMember(deps, request, "org:manage");
        return setCsatSettings(deps, orgId, memberActor(principal.member.id), body);
      },
      {
        body: t.Object({
          csat_enabled: t.Boolean(),
          csat_question: t.Optional(t.Union([t.String({ maxLength: CSAT_QUESTION_MAX }), t.Null()], { description: "Empty or null: the default question." })),
        }),
        response: Settings,
        detail: { tags: ["Widget settings"], summary: "Turn the CSAT question on or off and set its wording" },
      },
    );
}
