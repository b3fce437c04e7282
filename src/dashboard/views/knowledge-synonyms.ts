// The synonyms page: the org's groups of words customers use for the same thing, one group a line,
// in one form (saved only with knowledge:manage).
import { type Html, html } from "../../html/html.ts";
import { errorSummary, type FieldErrors, submit, textarea } from "../kit/fields.ts";

export interface SynonymsProps {
  text: string;
  manage: boolean;
  maxGroups: number;
  /** The refused save's errors (null: none was refused). */
  errors: FieldErrors | null;
}

export function Synonyms(p: SynonymsProps): Html {
  const groups = textarea({
    name: "synonyms",
    label: "Groups, one per line",
    value: p.text,
    error: p.errors?.synonyms,
    rows: 10,
    hint: `Words or two-word phrases separated by commas, e.g. "refund, money back". At most ${p.maxGroups} groups.`,
  });
  return html`<p><a href="/dashboard/knowledge">← Knowledge base</a></p>
<h1>Synonyms</h1>
<p class="muted">Words your customers use for the same thing. A question using one of a group also finds articles using the others.</p>
${p.errors ? errorSummary(p.errors) : ""}
<form method="post" action="/dashboard/knowledge/synonyms" novalidate>
${groups}
${p.manage ? html`<div class="actions">${submit("Save synonyms", { busy: "Saving…" })}</div>` : ""}
</form>`;
}
