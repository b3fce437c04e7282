// "Try a question" on the dashboard's Test your agent page (src/dashboard/eval.ts): one question
// answered in place by the chosen agent, as POST /api/eval/preview does (src/agents/eval-preview.ts),
// with the answer, the passage it came from, its confidence and why: the question's words found in
// that passage, on other pages only or on none, how far the first page leads the next, and the
// pages ranked next. A plain form post; the page is rendered again with the answer below the form.
import { EVAL_PREVIEW, type Preview, previewQuestion } from "../agents/eval-preview.ts";
import type { TermPlace } from "../agents/pipeline/explain.ts";
import { AppError } from "../errors.ts";
import { type Html, html } from "../html/html.ts";
import { badge, type DashboardContext, errorSummary, field, type FieldErrors, type FormValues, select, submit } from "./kit/index.ts";

export interface PreviewState {
  values: FormValues;
  errors: FieldErrors;
  status: number;
  preview?: Preview;
}

const PLACES: [TermPlace, string][] = [
  ["passage", "Words of the question in this passage"],
  ["pages", "Words found only on other pages"],
  ["none", "Words no page uses"],
];

function reasons(p: Preview): Html {
  const r = p.reasons;
  const words = (place: TermPlace) => r.terms.filter((t) => t.found === place).map((t) => t.word);
  return html`<h3>Why this answer</h3>
<ul class="preview-reasons">
${PLACES.map(([place, label]) => {
  const list = words(place);
  return html`<li>${label}: ${list.length > 0 ? html`<strong>${list.join(", ")}</strong>` : html`<span class="muted">none</span>`}</li>`;
})}
${r.added.length > 0 ? html`<li>Also looked for (spellings, joined or split words, synonyms): ${r.added.join(", ")}</li>` : ""}
<li>${
    r.first === null
      ? html`No page matched the question.`
      : r.lead === null
        ? html`The first page, ${r.first.title}, scored nothing.`
        : r.next[0]
          ? html`The first page, <strong>${r.first.title}</strong>, leads the next by <strong>${Math.round(r.lead * 100)}%</strong> (score ${r.first.score.toFixed(2)} against ${r.next[0].score.toFixed(2)}).`
          : html`The first page, <strong>${r.first.title}</strong>, is the only one that matched (score ${r.first.score.toFixed(2)}): it leads the next by <strong>100%</strong>.`
  }</li>
</ul>
${
  r.next.length > 0
    ? html`<h3>Pages ranked next</h3><ol class="preview-next">${r.next.map((n) => html`<li><a href="/dashboard/knowledge/${n.doc_id}">${n.title}</a> <span class="muted">score ${n.score.toFixed(2)}</span></li>`)}</ol>`
    : ""
}`;
}

function result(p: Preview): Html {
  return html`<div class="preview-result" aria-labelledby="preview-answer-h">
<h3 id="preview-answer-h">Answer of ${p.agent_name}</h3>
<p class="muted">“${p.question}”</p>
<div class="turn turn-ai"><div class="turn-text">${p.reply}</div></div>
<p>Confidence <strong>${p.confidence.toFixed(2)}</strong> ${p.answered ? badge("answered", "ok") : badge("not answered: a person would be offered", "warn")}</p>
<h3>The passage it came from</h3>
${
  p.passage
    ? html`<p><a href="/dashboard/knowledge/${p.passage.doc_id}">${p.passage.title}</a></p><blockquote class="turn"><div class="turn-text">${p.passage.text}</div></blockquote>`
    : html`<p class="muted">No passage covers the question well enough to answer from it.</p>`
}
${reasons(p)}
</div>`;
}

/** The "Try a question" panel: its form and, after a post, the answer with why. */
export function previewPanel(agents: { value: string; label: string }[], defaultAgent: string, state: PreviewState | undefined): Html {
  const values = state?.values ?? { preview_agent: defaultAgent, question: "" };
  const errors = state?.errors ?? {};
  return html`<section class="panel" aria-labelledby="try-h"><h2 id="try-h">Try a question</h2>
<p class="muted">Ask one question as a customer would and see the answer, the passage it came from, and why. Nothing is stored.</p>
${errorSummary(errors)}
<form method="post" action="/dashboard/eval/preview" novalidate>
${select({ name: "preview_agent", label: "Agent", value: values.preview_agent ?? defaultAgent, error: errors.preview_agent, options: agents })}
${field({ name: "question", label: "Question", value: values.question ?? "", error: errors.question, maxLength: EVAL_PREVIEW.chars, hint: `Up to ${EVAL_PREVIEW.perMinute} questions a minute.` })}
<div class="actions">${submit("Ask", { busy: "Answering…" })}</div>
</form>
${state?.preview ? result(state.preview) : ""}
</section>`;
}

/** The posted question answered, or the form with its error (404: the agent, 429 and 400: the question). */
export async function tryQuestion(ctx: DashboardContext, values: FormValues): Promise<PreviewState> {
  const question = (values.question ?? "").trim();
  if (question === "") return { values, errors: { question: "Enter a question." }, status: 400 };
  if (question.length > EVAL_PREVIEW.chars) return { values, errors: { question: `At most ${EVAL_PREVIEW.chars} characters.` }, status: 400 };
  try {
    const preview = await previewQuestion(ctx.deps, ctx.orgId, ctx.principal.member.id, values.preview_agent || undefined, question, ctx.request.signal);
    return { values, errors: {}, status: 200, preview };
  } catch (error) {
    if (!(error instanceof AppError) || ![400, 404, 429].includes(error.status)) throw error;
    return { values, errors: error.status === 404 ? { preview_agent: error.message } : { question: error.message }, status: error.status };
  }
}
