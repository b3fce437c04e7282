// The org's synonyms for knowledge search: GET/PUT /api/knowledge/synonyms (roles knowledge:view /
// knowledge:manage). The whole list is replaced by a PUT; src/knowledge/synonyms.ts checks it.
import { Elysia, t } from "elysia";
import { recordActivity } from "../activity/log.ts";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { memberActor } from "../kit/actor.ts";
import { getSynonyms, putSynonyms, SYNONYM_LIMITS, type Synonyms } from "./synonyms.ts";

const Groups = t.Array(t.Array(t.String({ maxLength: SYNONYM_LIMITS.chars }), { maxItems: SYNONYM_LIMITS.perGroup }), {
  maxItems: SYNONYM_LIMITS.groups,
  description: 'Groups of words or two-word phrases that mean the same, e.g. [["refund", "money back"]].',
});
const View = t.Object({ synonyms: Groups, updated_at: t.Union([t.String(), t.Null()]) });
const view = (s: Synonyms) => ({ synonyms: s.groups, updated_at: s.updatedAt?.toISOString() ?? null });
const detail = { tags: ["Knowledge"] };

export function synonymsRoutes(deps: Pick<Deps, "config" | "db" | "knowledge" | "now">) {
  return new Elysia({ name: "knowledge-synonyms" })
    .get(
      "/api/knowledge/synonyms",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "knowledge:view");
        return view(await getSynonyms(deps, orgId));
      },
      { response: View, detail: { ...detail, summary: "The org's synonyms for knowledge search" } },
    )
    .put(
      "/api/knowledge/synonyms",
      async ({ request, body }) => {
        const { orgId, principal } = await requireMember(deps, request, "knowledge:manage");
        const saved = await putSynonyms(deps, orgId, body.synonyms);
        await recordActivity(deps, {
          orgId,
          actor: memberActor(principal.member.id),
          action: "synonyms.updated",
          objectType: "org",
          objectId: orgId,
          summary: { groups: saved.groups.length },
        });
        return view(saved);
      },
      {
        body: t.Object({ synonyms: Groups }, { additionalProperties: false }),
        response: View,
        detail: { ...detail, summary: "Replace the org's synonyms for knowledge search" },
      },
    );
}
