// GET /api/knowledge/gaps: the customers' questions the agent could not answer with confidence,
// grouped (src/knowledge/gaps.ts). It shows customers' words, so it needs inbox:view besides
// knowledge:manage (the role that writes the articles).
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { knowledgeGaps } from "./gaps.ts";

const Group = t.Object({
  terms: t.Array(t.String()),
  count: t.Integer(),
  questions: t.Array(t.String()),
  last_asked_at: t.String(),
  write_article_url: t.String(),
});

export function gapsRoutes(deps: Deps) {
  return new Elysia({ name: "knowledge-gaps" }).get(
    "/api/knowledge/gaps",
    async ({ request, query }) => {
      const { orgId } = await requireMember(deps, request, "knowledge:manage");
      await requireMember(deps, request, "inbox:view");
      return { gaps: await knowledgeGaps(deps, orgId, { days: query.days ?? 30, limit: query.limit ?? 20 }) };
    },
    {
      query: t.Object({ days: t.Optional(t.Integer({ minimum: 1, maximum: 365 })), limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })) }),
      response: t.Object({ gaps: t.Array(Group) }),
      detail: { tags: ["Knowledge"], summary: "Questions the agent could not answer with confidence, grouped, most asked first" },
    },
  );
}
