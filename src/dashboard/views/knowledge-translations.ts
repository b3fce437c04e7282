// A document's versions in other languages, on its page: the list, each linked, and (with
// knowledge:manage) the form linking this document to another as the same article in another
// language, or unlinking it.
import { attrs, type Html, html } from "../../html/html.ts";
import type { Translation } from "../../knowledge/translations.ts";
import { select, submit } from "../kit/fields.ts";
import { languageLabel } from "../kit/language-label.ts";

export interface DocTranslationsProps {
  doc: { id: string; language: string | null };
  manage: boolean;
  translations: Translation[];
  /** Documents offered to link with. */
  candidates: { id: string; title: string; language: string | null }[];
  /** Why the last link was refused. */
  error?: string;
}

function linkForm(p: DocTranslationsProps): Html {
  const options = [
    { value: "", label: p.translations.length > 0 ? "None: unlink this document" : "Choose a document" },
    ...p.candidates.map((d) => ({ value: d.id, label: `${d.title} — ${languageLabel(d.language)}` })),
  ];
  return html`<form method="post" action="/dashboard/knowledge/${p.doc.id}/translation" novalidate>
${select({
  name: "translation_of",
  label: "Same article as",
  value: "",
  error: p.error,
  options,
  hint: "Link this document to its version in another language; imports link them by themselves.",
})}
<div class="actions">${submit("Save link", { kind: "secondary", busy: "Saving…" })}</div>
</form>`;
}

export function DocTranslations(p: DocTranslationsProps): Html {
  const item = (t: Translation) =>
    html`<li><a href="/dashboard/knowledge/${t.id}"${attrs({ hreflang: t.language ?? undefined, lang: t.language ?? undefined })}>${t.title}</a> — \
${languageLabel(t.language)}</li>`;
  const list = p.translations.length > 0 ? html`<ul>${p.translations.map(item)}</ul>` : html`<p class="muted">No version in another language is linked.</p>`;
  return html`<section aria-labelledby="translations-h" class="panel"><h2 id="translations-h">Other languages</h2>
<p>This document: ${languageLabel(p.doc.language)}.</p>
${list}
${p.manage ? linkForm(p) : ""}</section>`;
}
