// GET /api/knowledge/gaps: the customers' questions the agent did not answer well (low confidence,
// marked not helpful, handed off right after), grouped with counts by reason and the conversations
// behind them (src/knowledge/gaps.ts). It shows customers' words, so it needs inbox:view besides
// knowledge:manage (the role that writes the articles).
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { normalizeLanguage } from "../kit/language.ts";
import { GAPS, knowledgeGapsByLanguage, UNKNOWN_LANGUAGE } from "./gaps.ts";
import { missedSearches, unhelpfulArticles } from "./help-signals.ts";

const Reason = t.Union([t.Literal("low_confidence"), t.Literal("not_helpful"), t.Literal("handed_off"), t.Literal("boilerplate")], {
  description:
    'low_confidence: answered below confidence 0.5; not_helpful: the customer answered No to "Did that help?"; ' +
    "handed_off: the conversation's next reply handed it to a person (asked for, routed, or a ticket opened); " +
    "boilerplate: answered only from text repeated across a source's pages (not recorded yet: never given).",
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
  by_language: t.Record(t.String(), t.Integer(), {
    description: "How many of the group's answers were in conversations of each language (ISO 639-1; unknown: not known).",
  }),
});
const ByLanguage = t.Array(t.Object({ language: t.String(), count: t.Integer() }), {
  description: `The period's gap answers by their conversation's language (ISO 639-1; unknown: not known), most first; \
all of them, whatever language filters the groups (at most ${GAPS.scan} answers are read).`,
});
/** `?language=`: a language tag (counted by its primary language) or `unknown`. */
export const GapLanguage = t.String({
  pattern: "^(?:[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*|unknown)$",
  maxLength: 35,
  description: "Only the questions of conversations in this language (ISO 639-1), or unknown for those whose language is not known.",
});

export function gapsRoutes(deps: Pick<Deps, "config" | "db" | "knowledge" | "now" | "statements">) {
  return new Elysia({ name: "knowledge-gaps" }).get(
    "/api/knowledge/gaps",
    async ({ request, query }) => {
      const { orgId } = await requireMember(deps, request, "knowledge:manage");
      await requireMember(deps, request, "inbox:view");
      const language = query.language === undefined || query.language === UNKNOWN_LANGUAGE ? query.language : normalizeLanguage(query.language);
      if (language === null)
        throw AppError.badRequest("language is not a language tag.", [{ path: "/language", message: "must be a language tag or unknown" }]);
      const days = query.days ?? 30;
      // Up to and including now: the period's end is exclusive (src/knowledge/help-signals.ts).
      const until = new Date(deps.now().getTime() + 1);
      const since = new Date(until.getTime() - days * 86_400_000);
      const [{ gaps, by_language }, searches, articles] = await Promise.all([
        knowledgeGapsByLanguage(deps, orgId, { days, limit: query.limit ?? 20, language }),
        missedSearches(deps, orgId, since, until, query.limit ?? 20),
        unhelpfulArticles(deps, orgId, query.limit ?? 20),
      ]);
      return { gaps, by_language, help_centre: { searches_without_result: searches, not_helpful_articles: articles } };
    },
    {
      query: t.Object({
        days: t.Optional(t.Integer({ minimum: 1, maximum: 365 })),
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
        language: t.Optional(GapLanguage),
      }),
      response: t.Object({
        gaps: t.Array(GapGroupSchema),
        by_language: ByLanguage,
        help_centre: t.Object(
          {
            searches_without_result: t.Array(t.Object({ query: t.String(), count: t.Integer(), last_searched_at: t.String() }), {
              description: "Help centre searches (pages and widget) that found no public article in the period, grouped case folded, most frequent first.",
            }),
            not_helpful_articles: t.Array(t.Object({ id: t.String(), title: t.String(), views: t.Integer(), helpful: t.Integer(), not_helpful: t.Integer() }), {
              description: 'Articles customers answered No to "Was this article helpful?", most No first (all-time counts).',
            }),
          },
          { description: "What the public help centre says is missing." },
        ),
      }),
      detail: {
        tags: ["Knowledge"],
        summary: "Questions the agent did not answer well (low confidence, marked not helpful, handed off), grouped, most asked first",
      },
    },
  );
}
