// Dashboard: knowledge gaps (README "Knowledge gaps"), the customers' questions the agent did not
// answer well (low confidence, marked not helpful, handed off), grouped, most asked first, each
// group with its counts by reason, links to the conversations behind it and a "write an article"
// link whose new-document form opens titled with the question (src/knowledge/gaps.ts, as
// GET /api/knowledge/gaps). It shows customers' words, so it needs inbox:view besides
// knowledge:manage, as the API does.
import { AppError } from "../errors.ts";
import { html } from "../html/html.ts";
import { normalizeLanguage } from "../kit/language.ts";
import { GAP_REASONS, GAPS, type GapGroup, type GapReason, knowledgeGapsByLanguage, UNKNOWN_LANGUAGE } from "../knowledge/gaps.ts";
import { missedSearches, unhelpfulArticles } from "../knowledge/help-signals.ts";
import { type DashboardContext, listTable, select, shellPage, when } from "./kit/index.ts";
import { languageLabel } from "./kit/language-label.ts";

const PERIODS = [7, 30, 90, 365] as const;

const REASON_LABEL: Record<GapReason, string> = {
  low_confidence: "low confidence",
  not_helpful: "marked not helpful",
  handed_off: "handed off",
  boilerplate: "only boilerplate",
};

function reasons(g: GapGroup) {
  return html`<ul>${GAP_REASONS.filter((r) => g.by_reason[r] > 0).map((r) => html`<li>${String(g.by_reason[r])} ${REASON_LABEL[r]}</li>`)}</ul>`;
}

function conversations(g: GapGroup) {
  return html`<ul>${g.conversations.map(
    (c) =>
      html`<li><a href="${c.url}">Conversation of ${when(c.asked_at)}</a> <span class="muted">(${c.reasons.map((r) => REASON_LABEL[r]).join(", ")})</span></li>`,
  )}</ul>`;
}

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
  const body = html`<p><a href="/dashboard/knowledge">← Knowledge base</a></p>
<h1>Knowledge gaps</h1>
<p class="muted">Questions customers asked that the agent did not answer well: answered with low confidence (below ${String(GAPS.below)}), marked not helpful by the customer, or handed to a person right after the answer. They are grouped when they share their rarest words. Open a conversation to see what was said; write an article for a group and the next such question finds it.</p>
<form method="get" action="/dashboard/knowledge/gaps" class="toolbar">
${select({ name: "days", label: "Asked in the last", value: String(days), options: PERIODS.map((d) => ({ value: String(d), label: `${d} days` })) })}
${select({
  name: "language",
  label: "Customer's language",
  value: language ?? "",
  options: [{ value: "", label: "Any language" }, ...languages.map((l) => ({ value: l, label: languageLabel(l) }))],
})}
<button type="submit" class="secondary">Show</button>
</form>
${
  by_language.length > 0
    ? html`<p class="muted" id="gaps-by-language">Unanswered questions by the customer's language: ${by_language.map((l) => `${languageLabel(l.language)} ${l.count}`).join(" · ")}.</p>`
    : ""
}
${listTable({
  caption: "Knowledge gaps, most asked first",
  columns: ["Questions", "Asked", "Languages", "Why", "Conversations", "Last asked", { label: "Write an article", hidden: true }],
  rows: gaps,
  row: (g) =>
    html`<tr><td><ul>${g.questions.map((q) => html`<li>${q}</li>`)}</ul></td><td>${String(g.count)}</td><td>${Object.entries(g.by_language)
      .map(([l, n]) => `${languageLabel(l)} ${n}`)
      .join(
        ", ",
      )}</td><td>${reasons(g)}</td><td>${conversations(g)}</td><td>${when(g.last_asked_at)}</td><td><a class="button secondary" href="${g.write_article_url}">Write an article</a></td></tr>`,
  empty: `No unanswered questions in the last ${days} days${language ? ` in ${languageLabel(language)}` : ""}.`,
})}
<h2>On the help centre</h2>
${listTable({
  caption: "Help centre searches without a result, most frequent first",
  columns: ["Search", "Times", "Last searched", { label: "Write an article", hidden: true }],
  rows: searches,
  row: (m) =>
    html`<tr><td>${m.query}</td><td>${String(m.count)}</td><td>${when(m.last_searched_at)}</td><td><a class="button secondary" href="/dashboard/knowledge/new?title=${encodeURIComponent(m.query)}">Write an article</a></td></tr>`,
  empty: `Every help centre search in the last ${days} days found an article.`,
})}
${listTable({
  caption: "Articles marked not helpful on the help centre",
  columns: ["Article", "Not helpful", "Helpful", "Views"],
  rows: articles,
  row: (a) =>
    html`<tr><td><a href="/dashboard/knowledge/${a.id}">${a.title}</a></td><td>${String(a.not_helpful)}</td><td>${String(a.helpful)}</td><td>${String(a.views)}</td></tr>`,
  empty: "No article was marked not helpful.",
})}`;
  return shellPage(ctx, { title: "Knowledge gaps", active: "knowledge", body });
}
