// Dashboard: knowledge gaps (README "Knowledge gaps"), the customers' questions the agent did not
// answer well (low confidence, marked not helpful, handed off), grouped, most asked first, each
// group with its counts by reason, links to the conversations behind it and a "write an article"
// link whose new-document form opens titled with the question (src/knowledge/gaps.ts, as
// GET /api/knowledge/gaps). It shows customers' words, so it needs inbox:view besides
// knowledge:manage, as the API does.
import { AppError } from "../errors.ts";
import { normalizeLanguage } from "../kit/language.ts";
import { GAP_REASONS, GAPS, knowledgeGapsByLanguage, UNKNOWN_LANGUAGE } from "../knowledge/gaps.ts";
import { missedSearches, unhelpfulArticles } from "../knowledge/help-signals.ts";
import { type DashboardContext, shellPage } from "./kit/index.ts";
import { KnowledgeGaps } from "./views/knowledge-gaps.ts";

const PERIODS = [7, 30, 90, 365] as const;

export async function gapsPage(ctx: DashboardContext, query: Record<string, string | undefined>): Promise<Response> {
  if (!ctx.can("inbox:view")) throw AppError.forbidden("Knowledge gaps show customers' questions: they need the inbox:view role too.");
  const days = PERIODS.find((d) => String(d) === query.days) ?? 30;
  const language = query.language === UNKNOWN_LANGUAGE ? UNKNOWN_LANGUAGE : (normalizeLanguage(query.language) ?? undefined);
  const until = new Date(ctx.deps.now().getTime() + 1); // up to and including now
  const [{ gaps, by_language }, searches, articles] = await Promise.all([
    knowledgeGapsByLanguage(ctx.deps, ctx.orgId, { days, limit: 50, language }),
    missedSearches(ctx.deps, ctx.orgId, new Date(until.getTime() - days * 86_400_000), until),
    unhelpfulArticles(ctx.deps, ctx.orgId),
  ]);
  const languages = by_language.map((l) => l.language);
  if (language && !languages.includes(language)) languages.push(language);
  const body = KnowledgeGaps({
    days,
    periods: PERIODS,
    language,
    languages,
    byLanguage: by_language,
    gaps,
    reasons: GAP_REASONS,
    below: GAPS.below,
    searches,
    articles,
  });
  return shellPage(ctx, { title: "Knowledge gaps", active: "knowledge", body });
}
