// A document's versions in other languages on its page (src/knowledge/translations.ts): the list,
// each linked, and a form that links this document to another as the same article in another
// language (or unlinks it), as PATCH /api/docs/{id} `translation_of` does.
import { recordActivity } from "../activity/log.ts";
import type { Html } from "../html/html.ts";
import { memberActor } from "../kit/actor.ts";
import { type Doc, listDocs } from "../knowledge/docs.ts";
import { docTranslations, linkTranslation, type Translation } from "../knowledge/translations.ts";
import { type DashboardContext, type FieldErrors, type FormValues, redirect, submitForm } from "./kit/index.ts";
import { DocTranslations } from "./views/knowledge-translations.ts";

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
  return DocTranslations({ doc, manage: ctx.can("knowledge:manage"), ...view });
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
