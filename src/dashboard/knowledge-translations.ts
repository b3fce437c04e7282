// A document's versions in other languages on its page (src/knowledge/translations.ts): the list,
// each linked, and a form that links this document to another as the same article in another
// language (or unlinks it), as PATCH /api/docs/{id} `translation_of` does.
import { recordActivity } from "../activity/log.ts";
import { attrs, type Html, html } from "../html/html.ts";
import { memberActor } from "../kit/actor.ts";
import { type Doc, listDocs } from "../knowledge/docs.ts";
import { docTranslations, linkTranslation, type Translation } from "../knowledge/translations.ts";
import { type DashboardContext, type FieldErrors, type FormValues, redirect, select, submit, submitForm } from "./kit/index.ts";
import { languageLabel } from "./kit/language-label.ts";

/** Documents offered to link with: the org's most recently changed. */
const CANDIDATES = 200;

export interface TranslationsView {
  translations: Translation[];
  candidates: { id: string; title: string; language: string | null }[];
  error?: string;
}

export async function translationsView(ctx: DashboardContext, doc: Doc): Promise<TranslationsView> {
  const translations = await docTranslations(ctx.deps, ctx.orgId, doc);
  const linked = new Set(translations.map((t) => t.id));
  const candidates = ctx.can("knowledge:manage")
    ? (await listDocs(ctx.deps, ctx.orgId, { limit: CANDIDATES, offset: 0 })).filter((d) => d.id !== doc.id && !linked.has(d.id))
    : [];
  return { translations, candidates };
}

export function translationsSection(ctx: DashboardContext, doc: Doc, view: TranslationsView): Html {
  const manage = ctx.can("knowledge:manage");
  return html`<section aria-labelledby="translations-h" class="panel"><h2 id="translations-h">Other languages</h2>
<p>This document: ${languageLabel(doc.language)}.</p>
${
  view.translations.length > 0
    ? html`<ul>${view.translations.map((t) => html`<li><a href="/dashboard/knowledge/${t.id}"${attrs({ hreflang: t.language ?? undefined, lang: t.language ?? undefined })}>${t.title}</a> — ${languageLabel(t.language)}</li>`)}</ul>`
    : html`<p class="muted">No version in another language is linked.</p>`
}
${
  manage
    ? html`<form method="post" action="/dashboard/knowledge/${doc.id}/translation" novalidate>
${select({
  name: "translation_of",
  label: "Same article as",
  value: "",
  error: view.error,
  options: [
    { value: "", label: view.translations.length > 0 ? "None: unlink this document" : "Choose a document" },
    ...view.candidates.map((d) => ({ value: d.id, label: `${d.title} — ${languageLabel(d.language)}` })),
  ],
  hint: "Link this document to its version in another language; imports link them by themselves.",
})}
<div class="actions">${submit("Save link", { kind: "secondary", busy: "Saving…" })}</div>
</form>`
    : ""
}</section>`;
}

/** The link form's post: link to the chosen document, or unlink with none chosen. */
export function saveTranslation(
  ctx: DashboardContext,
  doc: Doc,
  values: FormValues,
  again: (error: string, status: number) => Promise<Response>,
): Promise<Response> {
  return submitForm({
    values,
    validate: (v) => ({ input: { of: (v.translation_of ?? "").trim() || null }, errors: {} as FieldErrors }),
    call: async ({ of }) => {
      await linkTranslation(ctx.deps, ctx.orgId, doc.id, of);
      await recordActivity(ctx.deps, {
        orgId: ctx.orgId,
        actor: memberActor(ctx.principal.member.id),
        action: "doc.updated",
        objectType: "doc",
        objectId: doc.id,
        summary: { translation_of: of },
      });
      return of;
    },
    done: (of) =>
      redirect(ctx.deps, `/dashboard/knowledge/${doc.id}`, of ? "Linked as the same article in another language." : "Unlinked from its other languages."),
    render: ({ errors, status }) => again(errors.translation_of ?? "That document cannot be linked.", status),
    refused: (error) => ({ translation_of: error.message }),
  });
}
