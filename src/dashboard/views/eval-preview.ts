// "Try a question" on the Test your agent page: its form and, after a post, the answer of the
// chosen agent with the passage it came from, its confidence and why (the question's words found
// in that passage, on other pages only or on none; how far the first page leads the next; the
// pages ranked next).
import type { Preview } from "../../agents/eval-preview.ts";
import type { TermPlace } from "../../agents/pipeline/explain.ts";
import { type Html, html } from "../../html/html.ts";
import { errorSummary, field, type FieldErrors, type FormValues, select, submit } from "../kit/fields.ts";
import { badge } from "../kit/table.ts";

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

/** How far the first page leads the next, in words. */
function lead(r: Preview["reasons"]): Html {
  if (r.first === null) return html`No page matched the question.`;
  if (r.lead === null) return html`The first page, ${r.first.title}, scored nothing.`;
  const first = html`The first page, <strong>${r.first.title}</strong>,`;
  const score = r.first.score.toFixed(2);
  if (r.next[0]) {
    const against = html`(score ${score} against ${r.next[0].score.toFixed(2)})`;
    return html`${first} leads the next by <strong>${Math.round(r.lead * 100)}%</strong> ${against}.`;
  }
  return html`${first} is the only one that matched (score ${score}): it leads the next by <strong>100%</strong>.`;
}

function placeItem(r: Preview["reasons"], [place, label]: [TermPlace, string]): Html {
  const list = r.terms.filter((t) => t.found === place).map((t) => t.word);
  return html`<li>${label}: ${list.length > 0 ? html`<strong>${list.join(", ")}</strong>` : html`<span class="muted">none</span>`}</li>`;
}

function reasons(p: Preview): Html {
  const r = p.reasons;
  const added = r.added.length > 0 ? html`<li>Also looked for (spellings, joined or split words, synonyms): ${r.added.join(", ")}</li>` : "";
  const item = (n: Preview["reasons"]["next"][number]) =>
    html`<li><a href="/dashboard/knowledge/${n.doc_id}">${n.title}</a> <span class="muted">score ${n.score.toFixed(2)}</span></li>`;
  const next = r.next.length > 0 ? html`<h3>Pages ranked next</h3><ol class="preview-next">${r.next.map(item)}</ol>` : "";
  return html`<h3>Why this answer</h3>
<ul class="preview-reasons">
${PLACES.map((place) => placeItem(r, place))}
${added}
<li>${lead(r)}</li>
</ul>
${next}`;
}

function Passage({ passage }: Preview): Html {
  if (!passage) return html`<p class="muted">No passage covers the question well enough to answer from it.</p>`;
  const text = html`<blockquote class="turn"><div class="turn-text">${passage.text}</div></blockquote>`;
  return html`<p><a href="/dashboard/knowledge/${passage.doc_id}">${passage.title}</a></p>${text}`;
}

function result(p: Preview): Html {
  const answered = p.answered ? badge("answered", "ok") : badge("not answered: a person would be offered", "warn");
  return html`<div class="preview-result" aria-labelledby="preview-answer-h">
<h3 id="preview-answer-h">Answer of ${p.agent_name}</h3>
<p class="muted">“${p.question}”</p>
<div class="turn turn-ai"><div class="turn-text">${p.reply}</div></div>
<p>Confidence <strong>${p.confidence.toFixed(2)}</strong> ${answered}</p>
<h3>The passage it came from</h3>
${Passage(p)}
${reasons(p)}
</div>`;
}

export interface PreviewPanelProps {
  /** The agents one may ask, and the one chosen at first. */
  agents: { value: string; label: string }[];
  defaultAgent: string;
  state: PreviewState | undefined;
  limits: { chars: number; perMinute: number };
}

/** The "Try a question" panel: its form and, after a post, the answer with why. */
export function PreviewPanel({ agents, defaultAgent, state, limits }: PreviewPanelProps): Html {
  const values = state?.values ?? { preview_agent: defaultAgent, question: "" };
  const errors = state?.errors ?? {};
  const hint = `Up to ${limits.perMinute} questions a minute.`;
  return html`<section class="panel" aria-labelledby="try-h"><h2 id="try-h">Try a question</h2>
<p class="muted">Ask one question as a customer would and see the answer, the passage it came from, and why. Nothing is stored.</p>
${errorSummary(errors)}
<form method="post" action="/dashboard/eval/preview" novalidate>
${select({ name: "preview_agent", label: "Agent", value: values.preview_agent ?? defaultAgent, error: errors.preview_agent, options: agents })}
${field({ name: "question", label: "Question", value: values.question ?? "", error: errors.question, maxLength: limits.chars, hint })}
<div class="actions">${submit("Ask", { busy: "Answering…" })}</div>
</form>
${state?.preview ? result(state.preview) : ""}
</section>`;
}
