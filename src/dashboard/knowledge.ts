// Dashboard: the knowledge base (issue #14). List (by status), search (the ranking the agents use),
// create, edit with a markdown preview, publish/unpublish, delete, and import from a URL (through
// the outbound guard) or an uploaded markdown file, through src/knowledge/docs.ts and
// src/knowledge/docs-import.ts as /api/docs and the setup_* tools do.
import { Elysia, t } from "elysia";
import { Marked } from "marked";
import { memberActor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { createDoc, deleteDoc, type Doc, DOC_LIMITS, getDoc, listDocs, searchDocs, updateDoc } from "../knowledge/docs.ts";
import { IMPORT_LIMITS, importDocFromUrl, importMarkdownFile, MARKDOWN_EXTENSIONS } from "../knowledge/docs-import.ts";
import { escapeHtml, Html, html } from "../html/html.ts";
import { actionButton, type DashboardContext, errorSummary, field, type FieldErrors, formValues, type FormValues, PAGE_SIZE, pageNumber, pager, redirect, select, shellPage, submit, textarea, when, withMember, formBody, IdParams } from "./kit/index.ts";

/**
 * The preview: GitHub-flavoured markdown where raw HTML is shown as text and only http(s),
 * mailto and relative links and https images survive, so a document cannot put markup or
 * script URLs into the dashboard (the CSP would block scripts anyway).
 */
const preview = new Marked({ gfm: true, async: false });
preview.use({
  renderer: {
    html: (token) => escapeHtml(token.text),
    link(token) {
      const href = /^(https?:|mailto:|\/|#)/i.test(token.href) ? token.href : "#";
      return `<a href="${escapeHtml(href)}" rel="nofollow noopener">${this.parser.parseInline(token.tokens)}</a>`;
    },
    image(token) {
      return /^https:/i.test(token.href) ? `<img src="${escapeHtml(token.href)}" alt="${escapeHtml(token.text)}">` : escapeHtml(token.text);
    },
  },
});

export function renderMarkdown(markdown: string): Html {
  return new Html(preview.parse(markdown) as string);
}

function statusBadge(status: string): Html {
  return html`<span class="badge ${status === "published" ? "ok" : "warn"}">${status}</span>`;
}

function tagsOf(text: string | undefined): string[] {
  return (text ?? "").split(",").map((s) => s.trim()).filter(Boolean);
}

/** The document a form describes, or the errors next to its fields. */
function docFrom(v: FormValues): { input: { title: string; body: string; url: string | null; tags: string[]; status: "published" | "draft" }; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const title = (v.title ?? "").trim();
  const body = v.body ?? "";
  const url = (v.url ?? "").trim();
  const tags = tagsOf(v.tags);
  if (!title) errors.title = "Give the document a title.";
  else if (title.length > DOC_LIMITS.title) errors.title = `At most ${DOC_LIMITS.title} characters.`;
  if (!body.trim()) errors.body = "Write the document's text.";
  else if (body.length > DOC_LIMITS.body) errors.body = `At most ${DOC_LIMITS.body} characters (this has ${body.length}).`;
  if (url) {
    let ok = false;
    try {
      ok = ["http:", "https:"].includes(new URL(url).protocol);
    } catch {}
    if (!ok || url.length > DOC_LIMITS.url) errors.url = `An absolute http(s) address, at most ${DOC_LIMITS.url} characters.`;
  }
  if (tags.length > DOC_LIMITS.tags) errors.tags = `At most ${DOC_LIMITS.tags} tags.`;
  else if (tags.some((tag) => tag.length > DOC_LIMITS.tag)) errors.tags = `Each tag is at most ${DOC_LIMITS.tag} characters.`;
  const status = v.status === "draft" ? "draft" : "published";
  return { input: { title, body, url: url || null, tags, status }, errors };
}

function importErrors(error: AppError, fallback: string): FieldErrors {
  const out: FieldErrors = {};
  for (const d of error.details ?? []) {
    const key = d.path.split("/").filter(Boolean)[0] ?? fallback;
    out[key === "content" ? "file" : key] ??= d.message.charAt(0).toUpperCase() + d.message.slice(1) + ".";
  }
  if (Object.keys(out).length === 0) out[fallback] = error.message;
  return out;
}

// ---- pages --------------------------------------------------------------------------------------

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>, imports?: { values: FormValues; errors: FieldErrors; which: "url" | "file"; status?: number }): Promise<Response> {
  const page = pageNumber(query.page);
  const q = (query.q ?? "").trim().slice(0, 200);
  const status = query.status === "published" || query.status === "draft" ? query.status : undefined;
  const manage = ctx.can("knowledge:manage");
  let table: Html;
  let hasMore = false;
  if (q) {
    // Search ranks published documents the way an agent finds them; shown one page at a time.
    const hits = await searchDocs(ctx.deps, ctx.orgId, q, page * PAGE_SIZE + 1);
    hasMore = hits.length > page * PAGE_SIZE;
    const shown = hits.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
    table = html`<p class="muted">${hits.length === 0 ? "No published document matches." : "Published documents, best match first."}</p>
<table><caption class="sr-only">Search results</caption><thead><tr><th scope="col">Document</th><th scope="col">Match</th></tr></thead>
<tbody>${shown.map((h) => html`<tr><td><a href="/dashboard/knowledge/${h.id}">${h.title}</a></td><td class="muted">${h.snippet}</td></tr>`)}</tbody></table>`;
  } else {
    const rows = await listDocs(ctx.deps, ctx.orgId, { status, limit: PAGE_SIZE + 1, offset: (page - 1) * PAGE_SIZE });
    hasMore = rows.length > PAGE_SIZE;
    table = html`<table><caption class="sr-only">Documents</caption><thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Tags</th><th scope="col">Updated</th></tr></thead>
<tbody>${rows.slice(0, PAGE_SIZE).map((d) => html`<tr><td><a href="/dashboard/knowledge/${d.id}">${d.title}</a>${d.url ? html`<div class="hint">${d.url}</div>` : ""}</td><td>${statusBadge(d.status)}</td><td>${d.tags.join(", ") || "—"}</td><td>${when(d.updatedAt)}</td></tr>`)}${
      rows.length === 0 ? html`<tr><td colspan="4">No documents${status ? ` with status ${status}` : ""} yet.</td></tr>` : ""
    }</tbody></table>`;
  }
  const iv = imports?.values ?? {};
  const ie = imports?.errors ?? {};
  const body = html`<h1>Knowledge base</h1>
<p class="muted">Agents answer from published documents and cite them.</p>
<form method="get" action="/dashboard/knowledge" class="toolbar" role="search">
${field({ name: "q", label: "Search", type: "search", value: q })}
${select({ name: "status", label: "Status", value: status ?? "", options: [{ value: "", label: "Any status" }, { value: "published", label: "Published" }, { value: "draft", label: "Draft" }] })}
<button type="submit" class="secondary">Search</button>
${manage ? html`<a class="button" href="/dashboard/knowledge/new">New document</a>` : ""}
</form>
${table}
${pager("/dashboard/knowledge", { q, status }, page, hasMore)}
${
  manage
    ? html`<div class="grid2">
<section class="panel" aria-labelledby="import-url"><h2 id="import-url">Import a web page</h2>
${imports?.which === "url" ? errorSummary(ie) : ""}
<form method="post" action="/dashboard/knowledge/import-url" novalidate>
${field({ name: "url", label: "Page address", type: "url", value: iv.url, error: imports?.which === "url" ? ie.url : undefined, required: true, hint: "https only; fetched once, at most 2 MiB, 15 seconds." })}
${field({ name: "title", label: "Title (optional)", value: imports?.which === "url" ? iv.title : "", error: imports?.which === "url" ? ie.title : undefined, hint: "Default: the page's title." })}
<div class="actions">${submit("Import page", { busy: "Importing…" })}</div>
</form></section>
<section class="panel" aria-labelledby="import-file"><h2 id="import-file">Import a markdown file</h2>
${imports?.which === "file" ? errorSummary(ie) : ""}
<form method="post" action="/dashboard/knowledge/import-file" novalidate data-file-import>
<div class="field${ie.file ? " has-error" : ""}"><label for="f-file">Markdown file</label><input type="file" id="f-file" name="file_name" accept="${MARKDOWN_EXTENSIONS.join(",")}" aria-describedby="f-file-hint${ie.file ? " f-file-error" : ""}"><p class="hint" id="f-file-hint">${MARKDOWN_EXTENSIONS.join(", ")}; title from its first heading, else its name.</p>${imports?.which === "file" && ie.file ? html`<p class="field-error" id="f-file-error">${ie.file}</p>` : ""}</div>
${textarea({ name: "content", label: "Its text", value: imports?.which === "file" ? iv.content : "", error: imports?.which === "file" ? ie.content : undefined, rows: 4, hint: "Filled from the chosen file; without scripts, paste the file's text here." })}
<div class="actions">${submit("Import file", { busy: "Importing…" })}</div>
</form></section>
</div>`
    : ""
}`;
  return shellPage(ctx, { title: "Knowledge base", active: "knowledge", body, status: imports ? (imports.status ?? 400) : 200 });
}

function editorPage(ctx: DashboardContext, doc: Doc | null, values: FormValues, errors: FieldErrors, options: { preview?: boolean; status?: number } = {}): Response {
  const manage = ctx.can("knowledge:manage");
  const action = doc ? `/dashboard/knowledge/${doc.id}` : "/dashboard/knowledge";
  const title = doc ? doc.title : "New document";
  const body = html`<p><a href="/dashboard/knowledge">← Knowledge base</a></p>
<h1>${title} ${doc ? statusBadge(doc.status) : ""}</h1>
${doc && manage ? html`<div class="actions">${actionButton(`/dashboard/knowledge/${doc.id}/status`, doc.status === "published" ? "Unpublish" : "Publish", { hidden: { status: doc.status === "published" ? "draft" : "published" } })}${actionButton(`/dashboard/knowledge/${doc.id}/delete`, "Delete", { kind: "danger", confirm: "Delete this document? Agents stop citing it at once." })}</div>` : ""}
${errorSummary(errors)}
<div class="grid2">
<form method="post" action="${action}" novalidate>
<fieldset${manage ? "" : new Html(" disabled")}><legend>Document</legend>
${field({ name: "title", label: "Title", value: values.title, error: errors.title, required: true, maxLength: DOC_LIMITS.title })}
${textarea({ name: "body", label: "Text (markdown)", value: values.body, error: errors.body, rows: 16, required: true })}
${field({ name: "url", label: "Source address (optional)", type: "url", value: values.url, error: errors.url, hint: "Cited with answers that use this document." })}
${field({ name: "tags", label: "Tags", value: values.tags, error: errors.tags, hint: "Comma-separated." })}
${select({ name: "status", label: "Status", value: values.status ?? "published", options: [{ value: "published", label: "Published: agents use it" }, { value: "draft", label: "Draft: not used yet" }] })}
</fieldset>
${manage ? html`<div class="actions">${submit(doc ? "Save" : "Create document", { busy: "Saving…", name: "intent", value: "save" })}${submit("Preview", { kind: "secondary", name: "intent", value: "preview" })}</div>` : ""}
</form>
<section aria-labelledby="preview-h"><h2 id="preview-h">Preview</h2><div class="preview">${options.preview || doc ? renderMarkdown(values.body ?? "") : html`<p class="muted">Press Preview to see the text rendered.</p>`}</div></section>
</div>`;
  return shellPage(ctx, { title, active: "knowledge", body, status: options.status ?? 200 });
}

function valuesOf(doc: Doc): FormValues {
  return { title: doc.title, body: doc.body, url: doc.url ?? "", tags: doc.tags.join(", "), status: doc.status };
}

async function docOf(ctx: DashboardContext, id: string): Promise<Doc> {
  const doc = await getDoc(ctx.deps, ctx.orgId, id);
  if (!doc) throw AppError.notFound("No such document.");
  return doc;
}

// ---- routes -------------------------------------------------------------------------------------

const Query = t.Object({ page: t.Optional(t.String({ maxLength: 10 })), q: t.Optional(t.String({ maxLength: 1000 })), status: t.Optional(t.String({ maxLength: 20 })) });
const FormBody = formBody({ text: 700_000, item: 700_000, items: 10 });

export function knowledgePages(deps: Deps) {
  return new Elysia({ name: "dashboard-knowledge" })
    .get("/dashboard/knowledge", ({ request, query }) => withMember(deps, request, "knowledge:view", (ctx) => listPage(ctx, query)), { query: Query })
    .get("/dashboard/knowledge/new", ({ request }) => withMember(deps, request, "knowledge:manage", (ctx) => editorPage(ctx, null, { status: "published" }, {})))
    .post(
      "/dashboard/knowledge",
      ({ request, body }) =>
        withMember(deps, request, "knowledge:manage", async (ctx) => {
          const values = formValues(body);
          const { input, errors } = docFrom(values);
          if (values.intent === "preview") return editorPage(ctx, null, values, {}, { preview: true });
          if (Object.keys(errors).length > 0) return editorPage(ctx, null, values, errors, { status: 400 });
          const doc = await createDoc(deps, ctx.orgId, input);
          await recordActivity(deps, { orgId: ctx.orgId, actor: memberActor(ctx.principal.member.id), action: "doc.created", objectType: "doc", objectId: doc.id, summary: { status: doc.status } });
          return redirect(deps, `/dashboard/knowledge/${doc.id}`, `“${doc.title}” created${doc.status === "published" ? " and published" : " as a draft"}.`);
        }),
      { body: FormBody },
    )
    .get("/dashboard/knowledge/:id", ({ request, params }) =>
      withMember(deps, request, "knowledge:view", async (ctx) => {
        const doc = await docOf(ctx, params.id);
        return editorPage(ctx, doc, valuesOf(doc), {});
      }),
      { params: IdParams },
    )
    .post(
      "/dashboard/knowledge/:id",
      ({ request, params, body }) =>
        withMember(deps, request, "knowledge:manage", async (ctx) => {
          const doc = await docOf(ctx, params.id);
          const values = formValues(body);
          if (values.intent === "preview") return editorPage(ctx, doc, values, {}, { preview: true });
          const { input, errors } = docFrom(values);
          if (Object.keys(errors).length > 0) return editorPage(ctx, doc, values, errors, { status: 400 });
          await updateDoc(deps, ctx.orgId, doc.id, input);
          await recordActivity(deps, { orgId: ctx.orgId, actor: memberActor(ctx.principal.member.id), action: "doc.updated", objectType: "doc", objectId: doc.id, summary: { status: input.status } });
          return redirect(deps, `/dashboard/knowledge/${doc.id}`, "Document saved.");
        }),
      { params: IdParams, body: FormBody },
    )
    .post(
      "/dashboard/knowledge/:id/status",
      ({ request, params, body }) =>
        withMember(deps, request, "knowledge:manage", async (ctx) => {
          const doc = await docOf(ctx, params.id);
          const status = formValues(body).status === "draft" ? "draft" : "published";
          await updateDoc(deps, ctx.orgId, doc.id, { status });
          await recordActivity(deps, { orgId: ctx.orgId, actor: memberActor(ctx.principal.member.id), action: status === "published" ? "doc.published" : "doc.unpublished", objectType: "doc", objectId: doc.id });
          return redirect(deps, `/dashboard/knowledge/${doc.id}`, status === "published" ? "Published: agents use it now." : "Unpublished: agents no longer use it.");
        }),
      { params: IdParams, body: FormBody },
    )
    .post(
      "/dashboard/knowledge/:id/delete",
      ({ request, params }) =>
        withMember(deps, request, "knowledge:manage", async (ctx) => {
          const doc = await docOf(ctx, params.id);
          await deleteDoc(deps, ctx.orgId, doc.id);
          await recordActivity(deps, { orgId: ctx.orgId, actor: memberActor(ctx.principal.member.id), action: "doc.deleted", objectType: "doc", objectId: doc.id });
          return redirect(deps, "/dashboard/knowledge", `“${doc.title}” deleted.`);
        }),
      { params: IdParams },
    )
    .post(
      "/dashboard/knowledge/import-url",
      ({ request, body }) =>
        withMember(deps, request, "knowledge:manage", async (ctx) => {
          const values = formValues(body);
          const url = (values.url ?? "").trim();
          if (!url) return listPage(ctx, {}, { values, errors: { url: "Give the page's address." }, which: "url" });
          try {
            const doc = await importDocFromUrl(deps, ctx.orgId, memberActor(ctx.principal.member.id), { url, ...(values.title?.trim() ? { title: values.title.trim() } : {}) }, request.signal);
            return redirect(deps, `/dashboard/knowledge/${doc.id}`, `Imported “${doc.title}” (${doc.body.length} characters).`);
          } catch (error) {
            if (error instanceof AppError && error.status < 500) return listPage(ctx, {}, { values, errors: importErrors(error, "url"), which: "url", status: error.status });
            throw error;
          }
        }),
      { body: FormBody },
    )
    .post(
      "/dashboard/knowledge/import-file",
      ({ request, body }) =>
        withMember(deps, request, "knowledge:manage", async (ctx) => {
          const values = formValues(body);
          // The file input sends only the file's name in a urlencoded form; its text comes in `content`.
          const fileName = (values.file_name ?? "").split(/[\\/]/).pop()!.trim();
          const content = values.content ?? "";
          const errors: FieldErrors = {};
          if (!fileName) errors.file = `Choose a ${MARKDOWN_EXTENSIONS.join(", ")} file.`;
          else if (fileName.length > IMPORT_LIMITS.fileName) errors.file = `The file name is longer than ${IMPORT_LIMITS.fileName} characters.`;
          if (!content.trim()) errors.content = "The file is empty (or, without scripts, paste its text).";
          if (Object.keys(errors).length > 0) return listPage(ctx, {}, { values, errors, which: "file" });
          try {
            const doc = await importMarkdownFile(deps, ctx.orgId, memberActor(ctx.principal.member.id), { file_name: fileName, content });
            return redirect(deps, `/dashboard/knowledge/${doc.id}`, `Imported “${doc.title}” from ${fileName}.`);
          } catch (error) {
            if (error instanceof AppError && error.status < 500) return listPage(ctx, {}, { values, errors: importErrors(error, "file"), which: "file", status: error.status });
            throw error;
          }
        }),
      { body: FormBody },
    );
}
