// Knowledge-base documents for the dashboard: /api/docs (roles knowledge:manage / knowledge:view).
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { createDoc, deleteDoc, type Doc, DOC_LIMITS, docView, getDoc, listDocs, UNKNOWN_LANGUAGE, updateDoc } from "./docs.ts";
import { AppError } from "../errors.ts";
import { normalizeLanguage } from "../kit/language.ts";
import { docTranslations, linkTranslation, TRANSLATIONS_LISTED } from "./translations.ts";

const Status = t.Union([t.Literal("published"), t.Literal("draft")]);
const Tags = t.Array(t.String({ minLength: 1, maxLength: DOC_LIMITS.tag }), { maxItems: DOC_LIMITS.tags });
const Fields = {
  title: t.String({ minLength: 1, maxLength: DOC_LIMITS.title }),
  body: t.String({ maxLength: DOC_LIMITS.body }),
  url: t.Union([t.String({ maxLength: DOC_LIMITS.url }), t.Null()]),
  tags: Tags,
  status: Status,
  language: t.Union([
    t.String({
      minLength: 1,
      maxLength: 35,
      description: "BCP 47 tag of the document's language (es, pt-BR); stored as its primary subtag. Absent on create, or null: detected from the text.",
    }),
    t.Null(),
  ]),
};

/** A document as docView gives it (src/knowledge/docs.ts): `url` only when it has one. */
export const DocView = t.Object(
  {
    id: t.String(),
    title: t.String(),
    body: t.String(),
    url: t.Optional(t.String()),
    tags: t.Array(t.String()),
    status: Status,
    language: t.Optional(t.String({ description: "ISO 639-1 code the document is indexed in; absent when it could not be told (indexed as English)" })),
    translations: t.Optional(
      t.Array(t.Object({ id: t.String(), language: t.Union([t.String(), t.Null()]), title: t.String() }), {
        description: `The same article in other languages (one document each, by language; null: not known), \
up to ${TRANSLATIONS_LISTED}; given when one document is read or changed.`,
      }),
    ),
    created_at: t.String({ format: "date-time" }),
    updated_at: t.String({ format: "date-time" }),
  },
  { additionalProperties: false },
);
/** `?language=`: a BCP 47 tag (its primary language is what counts: pt-BR lists pt) or `unknown`. */
const LanguageFilter = t.String({
  pattern: "^(?:[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*|unknown)$",
  maxLength: 35,
  description: "Only documents in this language (ISO 639-1; a longer tag counts by its primary language), or `unknown` for those whose language is not known.",
});
const TranslationOf = t.Union([t.String({ format: "uuid", maxLength: 36 }), t.Null()], {
  description: "Link this document as a version of another (the same article in another language), or null to unlink it.",
});

async function withTranslations(deps: Pick<Deps, "db">, orgId: string, doc: Doc) {
  return { ...docView(doc), translations: await docTranslations(deps, orgId, doc) };
}
const DocList = t.Object({
  docs: t.Array(DocView),
  next_offset: t.Optional(t.Integer({ description: "Pass as offset for the next page; absent on the last" })),
});

export function docsRoutes(deps: Pick<Deps, "config" | "db" | "knowledge" | "now">) {
  return new Elysia({ name: "docs" })
    .post(
      "/api/docs",
      async ({ body, request }) => {
        const { orgId } = await requireMember(deps, request, "knowledge:manage");
        return new Response(JSON.stringify(docView(await createDoc(deps, orgId, body))), { status: 201, headers: { "content-type": "application/json" } });
      },
      {
        body: t.Object(
          {
            title: Fields.title,
            body: Fields.body,
            url: t.Optional(Fields.url),
            tags: t.Optional(Tags),
            status: t.Optional(Status),
            language: t.Optional(Fields.language),
          },
          { additionalProperties: false },
        ),
        response: { 201: DocView },
        detail: { summary: "Add a help document to the knowledge base (knowledge:manage)", tags: ["Knowledge"], security: [{ dashboard: [] }] },
      },
    )
    .get(
      "/api/docs",
      async ({ query, request }) => {
        const { orgId } = await requireMember(deps, request, "knowledge:view");
        const limit = query.limit ?? 50;
        const offset = query.offset ?? 0;
        const language = query.language === undefined ? undefined : query.language === UNKNOWN_LANGUAGE ? UNKNOWN_LANGUAGE : normalizeLanguage(query.language);
        if (language === null)
          throw AppError.badRequest("language is not a language tag.", [{ path: "/language", message: "must be a language tag or unknown" }]);
        const docs = await listDocs(deps, orgId, { status: query.status, language, limit: limit + 1, offset });
        return { docs: docs.slice(0, limit).map(docView), ...(docs.length > limit ? { next_offset: offset + limit } : {}) };
      },
      {
        query: t.Object({
          status: t.Optional(Status),
          language: t.Optional(LanguageFilter),
          limit: t.Optional(t.Integer({ minimum: 1, maximum: 200 })),
          offset: t.Optional(t.Integer({ minimum: 0 })),
        }),
        response: { 200: DocList },
        detail: {
          summary: "The knowledge base's documents, by status and language, paged by offset (knowledge:view)",
          tags: ["Knowledge"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .get(
      "/api/docs/:id",
      async ({ params, request }) => {
        const { orgId } = await requireMember(deps, request, "knowledge:view");
        const doc = await getDoc(deps, orgId, params.id);
        if (!doc) throw AppError.notFound("No such document.");
        return withTranslations(deps, orgId, doc);
      },
      {
        response: { 200: DocView },
        detail: { summary: "Read one document, with its versions in other languages (knowledge:view)", tags: ["Knowledge"], security: [{ dashboard: [] }] },
      },
    )
    .patch(
      "/api/docs/:id",
      async ({ body, params, request }) => {
        const { orgId } = await requireMember(deps, request, "knowledge:manage");
        const { translation_of, ...patch } = body;
        // One transaction: a translation_of naming no document changes nothing else either, and the reverse.
        const doc = await deps.db.transaction(async (tx) => {
          const inner = { ...deps, db: tx };
          if (translation_of !== undefined) await linkTranslation(inner, orgId, params.id, translation_of);
          return Object.keys(patch).length > 0 ? updateDoc(inner, orgId, params.id, patch) : getDoc(inner, orgId, params.id);
        });
        if (!doc) throw AppError.notFound("No such document.");
        return withTranslations(deps, orgId, doc);
      },
      {
        body: t.Partial(t.Object({ ...Fields, translation_of: TranslationOf }), { additionalProperties: false, minProperties: 1 }),
        response: { 200: DocView },
        detail: {
          summary: "Update a document: title, body, url, tags, status, language, the translation it is a version of (knowledge:manage)",
          tags: ["Knowledge"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .delete(
      "/api/docs/:id",
      async ({ params, request }) => {
        const { orgId } = await requireMember(deps, request, "knowledge:manage");
        await deleteDoc(deps, orgId, params.id);
        return new Response(null, { status: 204 });
      },
      {
        response: { 204: t.Void({ description: "Deleted" }) },
        detail: { summary: "Delete a document (knowledge:manage)", tags: ["Knowledge"], security: [{ dashboard: [] }] },
      },
    );
}
