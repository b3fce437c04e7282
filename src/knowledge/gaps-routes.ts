// GET /api/knowledge/gaps: the customers' questions the agent did not answer well (low confidence,
// marked not helpful, handed off right after), grouped with counts by reason and the conversations
// behind them (src/knowledge/gaps.ts). It shows customers' words, so it needs inbox:view besides
// knowledge:manage (the role that writes the articles).
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { GAPS, knowledgeGaps } from "./gaps.ts";

const Reason = t.Union([t.Literal("low_confidence"), t.Literal("not_helpful"), t.Literal("handed_off"), t.Literal("boilerplate")], {
  description:
    "low_confidence: answered below confidence 0.5; not_helpful: the customer answered No to \"Did that help?\"; handed_off: the conversation's next reply handed it to a person (asked for, routed, or a ticket opened); boilerplate: answered only from text repeated across a source's pages (not recorded yet: never given).",
});
export const GapGroupSchema = t.Object({
  terms: t.Array(t.String()),
  count: t.Integer({ description: "Gap answers in the group." }),
  by_reason: t.Object(
    { low_confidence: t.Integer(), not_helpful: t.Integer(), handed_off: t.Integer(), boilerplate: t.Integer() },
    { description: "How many of the group's answers are gaps for each reason; an answer with two reasons counts in both." },
  ),
  questions: t.Array(t.String(), { description: `Up to ${GAPS.examples} of the questions, newest first.` }),
  conversations: t.Array(
    t.Object({
      id: t.String(),
      url: t.String({ description: "The conversation's dashboard page." }),
      asked_at: t.String(),
      reasons: t.Array(Reason),
    }),
    { description: `The conversations behind the group, newest first, up to ${GAPS.conversations}.` },
  ),
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
      response: t.Object({ gaps: t.Array(GapGroupSchema) }),
      detail: {
        tags: ["Knowledge"],
        summary: "Questions the agent did not answer well (low confidence, marked not helpful, handed off), grouped, most asked first",
      },
    },
  );
}
