// The knowledge gaps page: the customers' questions the agent did not answer well, grouped, most
// asked first, each group with its counts by reason, its conversations and a "write an article"
// link; then the help centre's searches that found nothing and its articles marked not helpful.
import { type Html, html } from "../../html/html.ts";
import type { GapGroup, GapReason } from "../../knowledge/gaps.ts";
import type { missedSearches, unhelpfulArticles } from "../../knowledge/help-signals.ts";
import { select } from "../kit/fields.ts";
import { languageLabel } from "../kit/language-label.ts";
import { listTable, when } from "../kit/table.ts";

type MissedSearch = Awaited<ReturnType<typeof missedSearches>>[number];
type UnhelpfulArticle = Awaited<ReturnType<typeof unhelpfulArticles>>[number];

export interface KnowledgeGapsProps {
  days: number;
  periods: readonly number[];
  language: string | undefined;
  /** The languages the filter offers. */
  languages: string[];
  /** How many unanswered questions each language has. */
  byLanguage: { language: string; count: number }[];
  gaps: GapGroup[];
  reasons: readonly GapReason[];
  /** The confidence below which an answer is a gap. */
  below: number;
  searches: MissedSearch[];
  articles: UnhelpfulArticle[];
}

const REASON_LABEL: Record<GapReason, string> = {
  low_confidence: "low confidence",
  not_helpful: "marked not helpful",
  handed_off: "handed off",
  boilerplate: "only boilerplate",
};

const ABOUT =
  "marked not helpful by the customer, or handed to a person right after the answer. They are grouped when they share their rarest words. " +
  "Open a conversation to see what was said; write an article for a group and the next such question finds it.";

function reasons(p: KnowledgeGapsProps, g: GapGroup): Html {
  return html`<ul>${p.reasons.filter((r) => g.by_reason[r] > 0).map((r) => html`<li>${String(g.by_reason[r])} ${REASON_LABEL[r]}</li>`)}</ul>`;
}

function conversations(g: GapGroup): Html {
  const item = (c: GapGroup["conversations"][number]) =>
    html`<li><a href="${c.url}">Conversation of ${when(c.asked_at)}</a> <span class="muted">(${c.reasons.map((r) => REASON_LABEL[r]).join(", ")})</span></li>`;
  return html`<ul>${g.conversations.map(item)}</ul>`;
}

function gapRow(p: KnowledgeGapsProps, g: GapGroup): Html {
  const languages = Object.entries(g.by_language)
    .map(([l, n]) => `${languageLabel(l)} ${n}`)
    .join(", ");
  return html`<tr><td><ul>${g.questions.map((q) => html`<li>${q}</li>`)}</ul></td><td>${String(g.count)}</td><td>${languages}</td>\
<td>${reasons(p, g)}</td><td>${conversations(g)}</td><td>${when(g.last_asked_at)}</td>\
<td><a class="button secondary" href="${g.write_article_url}">Write an article</a></td></tr>`;
}

function filters(p: KnowledgeGapsProps): Html {
  const languages = [{ value: "", label: "Any language" }, ...p.languages.map((l) => ({ value: l, label: languageLabel(l) }))];
  const periods = p.periods.map((d) => ({ value: String(d), label: `${d} days` }));
  return html`<form method="get" action="/dashboard/knowledge/gaps" class="toolbar">
${select({ name: "days", label: "Asked in the last", value: String(p.days), options: periods })}
${select({ name: "language", label: "Customer's language", value: p.language ?? "", options: languages })}
<button type="submit" class="secondary">Show</button>
</form>`;
}

function helpCentre(p: KnowledgeGapsProps): Html {
  const search = (m: MissedSearch) =>
    html`<tr><td>${m.query}</td><td>${String(m.count)}</td><td>${when(m.last_searched_at)}</td>\
<td><a class="button secondary" href="/dashboard/knowledge/new?title=${encodeURIComponent(m.query)}">Write an article</a></td></tr>`;
  const article = (a: UnhelpfulArticle) =>
    html`<tr><td><a href="/dashboard/knowledge/${a.id}">${a.title}</a></td><td>${String(a.not_helpful)}</td><td>${String(a.helpful)}</td>\
<td>${String(a.views)}</td></tr>`;
  return html`<h2>On the help centre</h2>
${listTable({
  caption: "Help centre searches without a result, most frequent first",
  columns: ["Search", "Times", "Last searched", { label: "Write an article", hidden: true }],
  rows: p.searches,
  row: search,
  empty: `Every help centre search in the last ${p.days} days found an article.`,
})}
${listTable({
  caption: "Articles marked not helpful on the help centre",
  columns: ["Article", "Not helpful", "Helpful", "Views"],
  rows: p.articles,
  row: article,
  empty: "No article was marked not helpful.",
})}`;
}

export function KnowledgeGaps(p: KnowledgeGapsProps): Html {
  const counts = p.byLanguage.map((l) => `${languageLabel(l.language)} ${l.count}`).join(" · ");
  return html`<p><a href="/dashboard/knowledge">← Knowledge base</a></p>
<h1>Knowledge gaps</h1>
<p class="muted">Questions customers asked that the agent did not answer well: answered with low confidence (below ${String(p.below)}), ${ABOUT}</p>
${filters(p)}
${p.byLanguage.length > 0 ? html`<p class="muted" id="gaps-by-language">Unanswered questions by the customer's language: ${counts}.</p>` : ""}
${listTable({
  caption: "Knowledge gaps, most asked first",
  columns: ["Questions", "Asked", "Languages", "Why", "Conversations", "Last asked", { label: "Write an article", hidden: true }],
  rows: p.gaps,
  row: (g) => gapRow(p, g),
  empty: `No unanswered questions in the last ${p.days} days${p.language ? ` in ${languageLabel(p.language)}` : ""}.`,
})}
${helpCentre(p)}`;
}
