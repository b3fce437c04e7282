// Dashboard: knowledge gaps (README "Knowledge gaps"), the customers' questions the agent could not
// answer with confidence, grouped, most asked first, each group with a "write an article" link
// whose new-document form opens titled with the question (src/knowledge/gaps.ts, as
// GET /api/knowledge/gaps). It shows customers' words, so it needs inbox:view besides
// knowledge:manage, as the API does.
import { AppError } from "../errors.ts";
import { html } from "../html/html.ts";
import { GAPS, knowledgeGaps } from "../knowledge/gaps.ts";
import { type DashboardContext, listTable, select, shellPage, when } from "./kit/index.ts";

const PERIODS = [7, 30, 90, 365] as const;

export async function gapsPage(ctx: DashboardContext, query: Record<string, string | undefined>): Promise<Response> {
  if (!ctx.can("inbox:view")) throw AppError.forbidden("Knowledge gaps show customers' questions: they need the inbox:view role too.");
  const days = PERIODS.find((d) => String(d) === query.days) ?? 30;
  const gaps = await knowledgeGaps(ctx.deps, ctx.orgId, { days, limit: 50 });
  const body = html`<p><a href="/dashboard/knowledge">← Knowledge base</a></p>
<h1>Knowledge gaps</h1>
<p class="muted">Questions customers asked that the agent could not answer with confidence (below ${String(GAPS.below)}), those it handed to a person included, grouped when they share their rarest words. Write an article for a group and the next such question finds it.</p>
<form method="get" action="/dashboard/knowledge/gaps" class="toolbar">
${select({ name: "days", label: "Asked in the last", value: String(days), options: PERIODS.map((d) => ({ value: String(d), label: `${d} days` })) })}
<button type="submit" class="secondary">Show</button>
</form>
${listTable({
  caption: "Knowledge gaps, most asked first",
  columns: ["Questions", "Asked", "Last asked", { label: "Write an article", hidden: true }],
  rows: gaps,
  row: (g) =>
    html`<tr><td><ul>${g.questions.map((q) => html`<li>${q}</li>`)}</ul></td><td>${String(g.count)}</td><td>${when(g.last_asked_at)}</td><td><a class="button secondary" href="${g.write_article_url}">Write an article</a></td></tr>`,
  empty: `No unanswered questions in the last ${days} days.`,
})}`;
  return shellPage(ctx, { title: "Knowledge gaps", active: "knowledge", body });
}
