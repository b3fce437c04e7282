// Dashboard: the knowledge base (knowledge:view to read, knowledge:manage to change). The list,
// search and imports (knowledge-list.ts), a document's editor with a markdown preview
// (knowledge-docs.ts), create, save, publish/unpublish and delete, through src/knowledge/docs.ts
// as /api/docs and the setup_* tools do; each change is in the activity log with its member.
import { publicArticleUrl } from "../helpcentre/links.ts";
import { Elysia, t } from "elysia";
import { recordActivity } from "../activity/log.ts";
import { AppError } from "../errors.ts";
import { memberActor } from "../kit/actor.ts";
import { createDoc, deleteDoc, type Doc, getDoc, updateDoc } from "../knowledge/docs.ts";
import { type DashboardContext, type DashboardDeps, formBody, formValues, type FormValues, IdParams, redirect, submitForm, withMember } from "./kit/index.ts";
import { docFrom, editorPage, valuesOf } from "./knowledge-docs.ts";
import { importFile, importUrl, listPage } from "./knowledge-list.ts";
import { saveSynonyms, synonymsPage } from "./knowledge-synonyms.ts";
import { gapsPage } from "./knowledge-gaps.ts";
import { saveTranslation, translationsSection, translationsView } from "./knowledge-translations.ts";

/** A document's page: its editor, and its versions in other languages below (with `linkError` after a refused link). */
async function docPage(ctx: DashboardContext, doc: Doc, linkError?: { text: string; status: number }): Promise<Response> {
  const view = await translationsView(ctx, doc);
  return editorPage(
    ctx,
    doc,
    valuesOf(doc),
    {},
    {
      after: translationsSection(ctx, doc, { ...view, error: linkError?.text }),
      status: linkError?.status,
      publicUrl: await publicArticleUrl(ctx.deps, ctx.orgId, doc),
    },
  );
}

async function docOf(ctx: DashboardContext, id: string): Promise<Doc> {
  const doc = await getDoc(ctx.deps, ctx.orgId, id);
  if (!doc) throw AppError.notFound("No such document.");
  return doc;
}

/** Create (`doc` null) or save a document; the Preview button renders the text and saves nothing. */
function saveDoc(ctx: DashboardContext, doc: Doc | null, values: FormValues): Response | Promise<Response> {
  if (values.intent === "preview") return editorPage(ctx, doc, values, {}, { preview: true });
  const actor = memberActor(ctx.principal.member.id);
  return submitForm({
    values,
    validate: docFrom,
    call: async (input) => {
      if (!doc) {
        const created = await createDoc(ctx.deps, ctx.orgId, input);
        await recordActivity(ctx.deps, {
          orgId: ctx.orgId,
          actor,
          action: "doc.created",
          objectType: "doc",
          objectId: created.id,
          summary: { status: created.status },
        });
        return created;
      }
      await updateDoc(ctx.deps, ctx.orgId, doc.id, input);
      await recordActivity(ctx.deps, {
        orgId: ctx.orgId,
        actor,
        action: "doc.updated",
        objectType: "doc",
        objectId: doc.id,
        summary: { status: input.status },
      });
      return doc;
    },
    done: (saved) =>
      redirect(
        ctx.deps,
        `/dashboard/knowledge/${saved.id}`,
        doc ? "Document saved." : `“${saved.title}” created${saved.status === "published" ? " and published" : " as a draft"}.`,
      ),
    render: ({ errors, status }) => editorPage(ctx, doc, values, errors, { status }),
    refused: () => null,
  });
}

const Query = t.Object({
  page: t.Optional(t.String({ maxLength: 10 })),
  q: t.Optional(t.String({ maxLength: 1000 })),
  status: t.Optional(t.String({ maxLength: 20 })),
  language: t.Optional(t.String({ maxLength: 35 })),
});
const FormBody = formBody({ text: 700_000, item: 700_000, items: 10 });

export function knowledgePages(deps: DashboardDeps) {
  const manage = "knowledge:manage" as const;
  return (
    new Elysia({ name: "dashboard-knowledge" })
      .get("/dashboard/knowledge", ({ request, query }) => withMember(deps, request, "knowledge:view", (ctx) => listPage(ctx, query)), { query: Query })
      .get("/dashboard/knowledge/gaps", ({ request, query }) => withMember(deps, request, manage, (ctx) => gapsPage(ctx, query)), {
        query: t.Object({ days: t.Optional(t.String({ maxLength: 10 })), language: t.Optional(t.String({ maxLength: 35 })) }),
      })
      .get("/dashboard/knowledge/synonyms", ({ request }) => withMember(deps, request, "knowledge:view", (ctx) => synonymsPage(ctx)))
      .post("/dashboard/knowledge/synonyms", ({ request, body }) => withMember(deps, request, manage, (ctx) => saveSynonyms(ctx, formValues(body))), {
        body: FormBody,
      })
      // `?title=` pre-fills the title (the knowledge gaps' "write an article" link).
      .get(
        "/dashboard/knowledge/new",
        ({ request, query }) =>
          withMember(deps, request, manage, (ctx) => editorPage(ctx, null, { status: "published", title: (query.title ?? "").slice(0, 300) }, {})),
        { query: t.Object({ title: t.Optional(t.String({ maxLength: 1000 })) }) },
      )
      .post("/dashboard/knowledge", ({ request, body }) => withMember(deps, request, manage, (ctx) => saveDoc(ctx, null, formValues(body))), { body: FormBody })
      .get(
        "/dashboard/knowledge/:id",
        ({ request, params }) =>
          withMember(deps, request, "knowledge:view", async (ctx) => {
            return docPage(ctx, await docOf(ctx, params.id));
          }),
        { params: IdParams },
      )
      .post(
        "/dashboard/knowledge/:id/translation",
        ({ request, params, body }) =>
          withMember(deps, request, manage, async (ctx) => {
            const doc = await docOf(ctx, params.id);
            return saveTranslation(ctx, doc, formValues(body), (text, status) => docPage(ctx, doc, { text, status }));
          }),
        { params: IdParams, body: FormBody },
      )
      .post(
        "/dashboard/knowledge/:id",
        ({ request, params, body }) => withMember(deps, request, manage, async (ctx) => saveDoc(ctx, await docOf(ctx, params.id), formValues(body))),
        { params: IdParams, body: FormBody },
      )
      .post(
        "/dashboard/knowledge/:id/status",
        ({ request, params, body }) =>
          withMember(deps, request, manage, async (ctx) => {
            const doc = await docOf(ctx, params.id);
            const status = formValues(body).status === "draft" ? "draft" : "published";
            await updateDoc(deps, ctx.orgId, doc.id, { status });
            await recordActivity(deps, {
              orgId: ctx.orgId,
              actor: memberActor(ctx.principal.member.id),
              action: status === "published" ? "doc.published" : "doc.unpublished",
              objectType: "doc",
              objectId: doc.id,
            });
            return redirect(
              deps,
              `/dashboard/knowledge/${doc.id}`,
              status === "published" ? "Published: agents use it now." : "Unpublished: agents no longer use it.",
            );
          }),
        { params: IdParams, body: FormBody },
      )
      .post(
        "/dashboard/knowledge/:id/delete",
        ({ request, params }) =>
          withMember(deps, request, manage, async (ctx) => {
            const doc = await docOf(ctx, params.id);
            await deleteDoc(deps, ctx.orgId, doc.id);
            await recordActivity(deps, {
              orgId: ctx.orgId,
              actor: memberActor(ctx.principal.member.id),
              action: "doc.deleted",
              objectType: "doc",
              objectId: doc.id,
            });
            return redirect(deps, "/dashboard/knowledge", `“${doc.title}” deleted.`);
          }),
        { params: IdParams },
      )
      .post("/dashboard/knowledge/import-url", ({ request, body }) => withMember(deps, request, manage, (ctx) => importUrl(ctx, formValues(body))), {
        body: FormBody,
      })
      .post("/dashboard/knowledge/import-file", ({ request, body }) => withMember(deps, request, manage, (ctx) => importFile(ctx, formValues(body))), {
        body: FormBody,
      })
  );
}
