// Dashboard: knowledge sources (README "Knowledge sources"; knowledge:view to see, knowledge:manage
// to change). The list with each source's kind, status (and the reason of a failure), counts,
// progress while it syncs (the page's script follows it through /api/knowledge/sources/{id}), last
// and next sync; adding a website; a source's page with the pages it could not import or kept
// because they were edited locally; "Sync now"; deleting through the confirmation page. Through
// src/sources/, as /api/knowledge/sources.
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { type Html, html } from "../html/html.ts";
import { memberActor } from "../kit/actor.ts";
import { type SourceRow, SOURCE_LIMITS, sourceView } from "../sources/model.ts";
import { createSource, deleteSource, getSource, listSources, sourceProblems } from "../sources/service.ts";
import { startSync } from "../sources/start.ts";
import { FilesBody, filesForm, uploadFiles } from "./knowledge-files.ts";
import {
  actionButton,
  badge,
  confirmPage,
  select,
  type DashboardContext,
  detailErrors,
  errorSummary,
  field,
  type FieldErrors,
  formBody,
  formValues,
  type FormValues,
  IdParams,
  listTable,
  redirect,
  type Refused,
  shellPage,
  submit,
  submitForm,
  textarea,
  when,
  withMember,
} from "./kit/index.ts";

type View = ReturnType<typeof sourceView>;
const KIND_LABELS: Record<string, string> = { website: "Website", zendesk: "Zendesk Guide", intercom: "Intercom Articles" };

function statusOf(s: View): Html {
  const tone = s.status === "ready" ? "ok" : s.status === "failed" ? "danger" : s.status === "syncing" ? "accent" : "";
  const progress =
    s.status === "syncing" && s.progress
      ? html`<div class="hint" role="status" data-sync-progress="${s.id}">${s.progress.done} of ${s.progress.found} pages done</div>`
      : "";
  return html`${badge(s.status, tone)}${progress}${s.reason ? html`<div class="hint">${s.reason}</div>` : ""}`;
}

function countsOf(s: View): Html {
  const c = s.counts;
  return html`<span class="hint">${c.found} found · ${c.imported} imported · ${c.updated} updated · ${c.unchanged} unchanged · ${c.failed} failed · ${c.removed} removed${c.conflicts ? html` · <strong>${c.conflicts} edited locally</strong>` : ""}</span>`;
}

const addressOf = (s: View) => s.start_url ?? s.base_url ?? "";

function helpCentreForm(v: FormValues, e: FieldErrors): Html {
  return html`<section class="panel" aria-labelledby="add-hc-h"><h2 id="add-hc-h">Add a help centre</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/knowledge/sources/help-centre" novalidate>
<div class="grid2">
${select({
  name: "hc_kind",
  label: "Help centre",
  value: v.hc_kind ?? "zendesk",
  error: e.hc_kind,
  options: [
    { value: "zendesk", label: "Zendesk Guide (public articles)" },
    { value: "intercom", label: "Intercom Articles (access token)" },
  ],
})}
${field({ name: "hc_name", label: "Name of the help centre", value: v.hc_name, error: e.hc_name, required: true, maxLength: SOURCE_LIMITS.name })}
</div>
${field({ name: "hc_base_url", label: "Address", type: "url", value: v.hc_base_url, error: e.hc_base_url, required: true, hint: "Zendesk: https://yours.zendesk.com. Intercom: https://api.intercom.io (or your region's API)." })}
<div class="grid2">
${field({ name: "hc_locale", label: "Locale (Zendesk)", value: v.hc_locale ?? "en-us", error: e.hc_locale, maxLength: SOURCE_LIMITS.locale })}
${field({ name: "hc_token", label: "Access token (Intercom)", type: "password", value: "", error: e.hc_token, hint: "Stored encrypted, never shown again." })}
</div>
<div class="actions">${submit("Add the help centre and sync", { busy: "Adding…" })}</div>
</form></section>`;
}

async function listPage(ctx: DashboardContext, form?: Refused & { helpCentre?: boolean; files?: boolean }): Promise<Response> {
  const sources = (await listSources(ctx.deps, ctx.orgId)).map(sourceView);
  const v = form && !form.helpCentre && !form.files ? form.values : {};
  const e = form && !form.helpCentre && !form.files ? form.errors : {};
  const body = html`<p><a href="/dashboard/knowledge">← Knowledge base</a></p>
<h1>Knowledge sources</h1>
<p class="muted">Websites and help centres whose pages become documents, kept in sync: changed pages are updated, removed pages removed. A document someone edited here is kept and shown as edited locally.</p>
${listTable({
  caption: "Knowledge sources",
  columns: ["Source", "Status", "Pages", "Last sync", "Next sync"],
  rows: sources,
  row: (s) =>
    html`<tr><td><a href="/dashboard/knowledge/sources/${s.id}">${s.name}</a><div class="hint">${KIND_LABELS[s.kind]} · ${addressOf(s)}</div></td><td>${statusOf(s)}</td><td>${countsOf(s)}</td><td>${when(s.last_sync_at)}</td><td>${when(s.next_sync_at)}</td></tr>`,
  empty: sources.length === 0 ? "No sources yet." : null,
})}
${
  ctx.can("knowledge:manage")
    ? html`<section class="panel" aria-labelledby="add-h"><h2 id="add-h">Add a website</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/knowledge/sources" novalidate>
<div class="grid2">
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: SOURCE_LIMITS.name })}
${field({ name: "max_pages", label: "Page cap", type: "number", value: v.max_pages ?? String(SOURCE_LIMITS.defaultPages), error: e.max_pages, hint: `At most ${SOURCE_LIMITS.maxPages}.` })}
</div>
${field({ name: "start_url", label: "Start page or sitemap", type: "url", value: v.start_url, error: e.start_url, required: true, hint: "A page whose links are followed, or a sitemap.xml (an index and gzip are read too). Only this host is crawled; robots.txt is respected." })}
<div class="grid2">
${textarea({ name: "include", label: "Only paths matching", value: v.include, error: e.include, rows: 3, hint: "One per line, such as /docs/*. Empty: every path." })}
${textarea({ name: "exclude", label: "Never paths matching", value: v.exclude, error: e.exclude, rows: 3, hint: "One per line, such as /blog/*." })}
</div>
<div class="actions">${submit("Add and sync", { busy: "Adding…" })}</div>
</form></section>
${helpCentreForm(form?.helpCentre ? form.values : {}, form?.helpCentre ? form.errors : {})}
${filesForm(form?.files ? form.errors : {})}`
    : ""
}`;
  return shellPage(ctx, { title: "Knowledge sources", active: "knowledge", body, status: form?.status });
}

async function detailPage(ctx: DashboardContext, row: SourceRow): Promise<Response> {
  const s = sourceView(row);
  const problems = await sourceProblems(ctx.deps, row.id);
  const manage = ctx.can("knowledge:manage");
  const body = html`<p><a href="/dashboard/knowledge/sources">← Knowledge sources</a></p>
<h1>${s.name}</h1>
<p class="muted">${KIND_LABELS[s.kind]} · ${addressOf(s)} · synced every ${Math.round(s.interval_seconds / 3600)} h · last sync ${when(s.last_sync_at)} · next ${when(s.next_sync_at)}</p>
<p>${statusOf(s)}</p>
<p>${countsOf(s)}</p>
<h2>Pages to look at</h2>
${listTable({
  caption: "Pages the last syncs could not import, or kept because they were edited locally",
  columns: ["Page", "Why"],
  rows: problems,
  row: (p) => html`<tr><td>${p.doc_id ? html`<a href="/dashboard/knowledge/${p.doc_id}">${p.url}</a>` : p.url}</td><td>${p.reason}</td></tr>`,
  empty: problems.length === 0 ? "None." : null,
})}
${manage ? html`<div class="actions">${s.status === "syncing" ? "" : actionButton(`/dashboard/knowledge/sources/${s.id}/sync`, "Sync now", { busy: "Starting…" })}<a class="button secondary" href="/dashboard/knowledge/sources/${s.id}/delete">Delete…</a></div>` : ""}`;
  return shellPage(ctx, { title: s.name, active: "knowledge", body });
}

function deletePage(ctx: DashboardContext, row: SourceRow): Response {
  return confirmPage(ctx, {
    title: `Delete ${row.name}`,
    heading: `Delete ${row.name}?`,
    active: "knowledge",
    back: { href: `/dashboard/knowledge/sources/${row.id}`, label: row.name },
    summary: "What deleting does",
    body: html`<p>The source stops syncing, and <strong>every document it brought is deleted</strong> with it, including the ones edited here. Agents stop answering from them at once.</p>`,
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

export function knowledgeSourcePages(deps: Deps) {
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
