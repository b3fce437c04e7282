// Dashboard: knowledge sources (README "Knowledge sources"; knowledge:view to see, knowledge:manage
// to change). The list with each source's kind, status (and the reason of a failure), counts,
// progress while it syncs (the page's script follows it through /api/knowledge/sources/{id}), last
// and next sync; adding a website; a source's page with the pages it could not import or kept
// because they were edited locally; "Sync now"; deleting through the confirmation page. Through
// src/sources/, as /api/knowledge/sources.
import { Elysia } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { type SourceRow, SOURCE_LIMITS, sourceView } from "../sources/model.ts";
import { createSource, deleteSource, getSource, listSources, sourceProblems } from "../sources/service.ts";
import { startSync } from "../sources/start.ts";
import { FILE_LIMITS, FILE_TYPES } from "../sources/file-formats.ts";
import { FilesBody, uploadFiles } from "./knowledge-files.ts";
import {
  confirmPage,
  type DashboardContext,
  type DashboardDeps,
  detailErrors,
  type FieldErrors,
  formBody,
  formValues,
  type FormValues,
  IdParams,
  redirect,
  type Refused,
  shellPage,
  submitForm,
  withMember,
} from "./kit/index.ts";
import { SourceDeletion, SourceDetail, SourceList } from "./views/knowledge-sources.ts";

const LIMITS = {
  name: SOURCE_LIMITS.name,
  locale: SOURCE_LIMITS.locale,
  defaultPages: SOURCE_LIMITS.defaultPages,
  maxPages: SOURCE_LIMITS.maxPages,
};

async function listPage(ctx: DashboardContext, form?: Refused & { helpCentre?: boolean; files?: boolean }): Promise<Response> {
  const sources = (await listSources(ctx.deps, ctx.orgId)).map(sourceView);
  const website = form && !form.helpCentre && !form.files;
  const body = SourceList({
    sources,
    manage: ctx.can("knowledge:manage"),
    limits: LIMITS,
    files: { files: FILE_LIMITS.files, types: FILE_TYPES },
    website: { values: website ? form.values : {}, errors: website ? form.errors : {} },
    helpCentre: { values: form?.helpCentre ? form.values : {}, errors: form?.helpCentre ? form.errors : {} },
    filesErrors: form?.files ? form.errors : {},
  });
  return shellPage(ctx, { title: "Knowledge sources", active: "knowledge", body, status: form?.status });
}

async function detailPage(ctx: DashboardContext, row: SourceRow): Promise<Response> {
  const source = sourceView(row);
  const body = SourceDetail({ source, problems: await sourceProblems(ctx.deps, row.id), manage: ctx.can("knowledge:manage") });
  return shellPage(ctx, { title: source.name, active: "knowledge", body });
}

function deletePage(ctx: DashboardContext, row: SourceRow): Response {
  return confirmPage(ctx, {
    title: `Delete ${row.name}`,
    heading: `Delete ${row.name}?`,
    active: "knowledge",
    back: { href: `/dashboard/knowledge/sources/${row.id}`, label: row.name },
    summary: "What deleting does",
    body: SourceDeletion(),
    action: `/dashboard/knowledge/sources/${row.id}/delete`,
    word: "yes",
    button: `Delete ${row.name} and its documents`,
    busy: "Deleting…",
  });
}

const lines = (text: string | undefined) =>
  (text ?? "")
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "");

function addWebsite(ctx: DashboardContext, values: FormValues): Promise<Response> {
  return submitForm({
    values,
    validate: (v) => {
      const errors: FieldErrors = {};
      const name = (v.name ?? "").trim();
      if (!name) errors.name = "Give the source a name.";
      if (!(v.start_url ?? "").trim()) errors.start_url = "Give the start page or sitemap.";
      const pages = Number(v.max_pages || SOURCE_LIMITS.defaultPages);
      if (!Number.isInteger(pages) || pages < 1 || pages > SOURCE_LIMITS.maxPages) errors.max_pages = `A whole number from 1 to ${SOURCE_LIMITS.maxPages}.`;
      return {
        input: {
          kind: "website" as const,
          name,
          start_url: (v.start_url ?? "").trim(),
          max_pages: pages,
          include: lines(v.include),
          exclude: lines(v.exclude),
        },
        errors,
      };
    },
    call: async (input) => {
      const created = await createSource(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), input);
      return startSync(ctx.deps, ctx.orgId, created.id);
    },
    done: (row) => redirect(ctx.deps, `/dashboard/knowledge/sources/${row.id}`, `“${row.name}” added; its first sync is running.`),
    render: (refused) => listPage(ctx, refused),
    refused: (error) => (error.status === 400 || error.status === 409 ? detailErrors(error, ([first]) => first ?? "start_url", "start_url") : null),
  });
}

function addHelpCentre(ctx: DashboardContext, values: FormValues): Promise<Response> {
  return submitForm({
    values,
    validate: (v) => {
      const errors: FieldErrors = {};
      const kind = v.hc_kind === "intercom" ? ("intercom" as const) : ("zendesk" as const);
      const name = (v.hc_name ?? "").trim();
      if (!name) errors.hc_name = "Give the source a name.";
      if (!(v.hc_base_url ?? "").trim()) errors.hc_base_url = "Give the help centre's address.";
      const token = (v.hc_token ?? "").trim();
      return {
        input: {
          kind,
          name,
          base_url: (v.hc_base_url ?? "").trim(),
          ...(kind === "zendesk" ? { locale: (v.hc_locale ?? "").trim() || "en-us" } : token ? { token } : {}),
        },
        errors,
      };
    },
    call: async (input) => {
      const created = await createSource(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), input);
      return startSync(ctx.deps, ctx.orgId, created.id);
    },
    done: (row) => redirect(ctx.deps, `/dashboard/knowledge/sources/${row.id}`, `“${row.name}” added; its first sync is running.`),
    render: (refused) => listPage(ctx, { ...refused, helpCentre: true }),
    refused: (error) => (error.status === 400 || error.status === 409 ? detailErrors(error, ([first]) => `hc_${first ?? "base_url"}`, "hc_base_url") : null),
  });
}

const FormBody = formBody({ text: 20_000, item: 10_000, items: 10 });

export function knowledgeSourcePages(deps: DashboardDeps) {
  const manage = "knowledge:manage" as const;
  return new Elysia({ name: "dashboard-knowledge-sources" })
    .get("/dashboard/knowledge/sources", ({ request }) => withMember(deps, request, "knowledge:view", (ctx) => listPage(ctx)))
    .post("/dashboard/knowledge/sources", ({ request, body }) => withMember(deps, request, manage, (ctx) => addWebsite(ctx, formValues(body))), {
      body: FormBody,
    })
    .post(
      "/dashboard/knowledge/sources/files",
      ({ request, body }) => withMember(deps, request, manage, (ctx) => uploadFiles(ctx, body, (refused) => listPage(ctx, { ...refused, files: true }))),
      { body: FilesBody },
    )
    .post("/dashboard/knowledge/sources/help-centre", ({ request, body }) => withMember(deps, request, manage, (ctx) => addHelpCentre(ctx, formValues(body))), {
      body: FormBody,
    })
    .get(
      "/dashboard/knowledge/sources/:id",
      ({ request, params }) => withMember(deps, request, "knowledge:view", async (ctx) => detailPage(ctx, await getSource(deps, ctx.orgId, params.id))),
      { params: IdParams },
    )
    .post(
      "/dashboard/knowledge/sources/:id/sync",
      ({ request, params }) =>
        withMember(deps, request, manage, async (ctx) => {
          const row = await getSource(deps, ctx.orgId, params.id);
          if (row.status === "syncing")
            return redirect(deps, `/dashboard/knowledge/sources/${row.id}`, { kind: "error", text: "A sync of this source is running already." });
          await startSync(deps, ctx.orgId, row.id);
          return redirect(deps, `/dashboard/knowledge/sources/${row.id}`, "Sync started.");
        }),
      { params: IdParams, body: FormBody },
    )
    .get(
      "/dashboard/knowledge/sources/:id/delete",
      ({ request, params }) => withMember(deps, request, manage, async (ctx) => deletePage(ctx, await getSource(deps, ctx.orgId, params.id))),
      { params: IdParams },
    )
    .post(
      "/dashboard/knowledge/sources/:id/delete",
      ({ request, params, body }) =>
        withMember(deps, request, manage, async (ctx) => {
          const row = await getSource(deps, ctx.orgId, params.id);
          if (formValues(body).confirm !== "yes") return deletePage(ctx, row);
          await deleteSource(deps, ctx.orgId, memberActor(ctx.principal.member.id), row.id);
          return redirect(deps, "/dashboard/knowledge/sources", `“${row.name}” and its documents are deleted.`);
        }),
      { params: IdParams, body: FormBody },
    );
}
