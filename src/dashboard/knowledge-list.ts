// The knowledge base's list: documents by status, a search with the ranking the agents use, and the
// two import forms (a web page fetched through the outbound guard, or a markdown file's text), through
// src/knowledge/docs.ts and src/knowledge/docs-import.ts as /api/docs and the setup_* tools do.
import { type Html, html } from "../html/html.ts";
import { memberActor } from "../kit/actor.ts";
import { docLanguages, listDocs, UNKNOWN_LANGUAGE } from "../knowledge/docs.ts";
import { normalizeLanguage } from "../kit/language.ts";
import { searchIndex } from "../knowledge/tools.ts";
import { IMPORT_LIMITS, importDocFromUrl, importMarkdownFile, MARKDOWN_EXTENSIONS } from "../knowledge/docs-import.ts";
import {
  type DashboardContext,
  errorSummary,
  field,
  type FieldErrors,
  type FormValues,
  listTable,
  PAGE_SIZE,
  pageNumber,
  pager,
  redirect,
  type Refused,
  select,
  shellPage,
  submit,
  submitForm,
  textarea,
  when,
} from "./kit/index.ts";
import { importErrors, statusBadge } from "./knowledge-docs.ts";
import { languageLabel } from "./kit/language-label.ts";

export async function listPage(
  ctx: DashboardContext,
  query: Record<string, string | undefined>,
  imports?: Refused & { which: "url" | "file" },
): Promise<Response> {
  const page = pageNumber(query.page);
  const q = (query.q ?? "").trim().slice(0, 200);
  const status = query.status === "published" || query.status === "draft" ? query.status : undefined;
  const language = query.language === UNKNOWN_LANGUAGE ? UNKNOWN_LANGUAGE : (normalizeLanguage(query.language) ?? undefined);
  // The filter offers the languages the org's documents are in (and the one asked for, if none is).
  const languages = (await docLanguages(ctx.deps, ctx.orgId)).map((l) => l.language ?? UNKNOWN_LANGUAGE);
  if (language && !languages.includes(language)) languages.push(language);
  const manage = ctx.can("knowledge:manage");
  let table: Html;
  let hasMore = false;
  if (q) {
    // Search ranks published documents the way an agent finds them; shown one page at a time.
    const hits = await searchIndex(ctx.deps, ctx.orgId, q, page * PAGE_SIZE + 1);
    hasMore = hits.length > page * PAGE_SIZE;
    const shown = hits.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
    table = html`<p class="muted">${hits.length === 0 ? "No published document matches." : "Published documents, best match first."}</p>
${listTable({
  caption: "Search results",
  columns: ["Document", "Match"],
  rows: shown,
  row: (h) => html`<tr><td><a href="/dashboard/knowledge/${h.id}">${h.title}</a></td><td class="muted">${h.snippet}</td></tr>`,
  empty: null,
})}`;
  } else {
    const rows = await listDocs(ctx.deps, ctx.orgId, { status, language, limit: PAGE_SIZE + 1, offset: (page - 1) * PAGE_SIZE });
    hasMore = rows.length > PAGE_SIZE;
    table = listTable({
      caption: "Documents",
      columns: ["Title", "Language", "Status", "Tags", "Updated"],
      rows: rows.slice(0, PAGE_SIZE),
      row: (d) =>
        html`<tr><td><a href="/dashboard/knowledge/${d.id}">${d.title}</a>${d.url ? html`<div class="hint">${d.url}</div>` : ""}</td><td>${languageLabel(d.language)}</td><td>${statusBadge(d.status)}</td><td>${d.tags.join(", ") || "—"}</td><td>${when(d.updatedAt)}</td></tr>`,
      empty: `No documents${status ? ` with status ${status}` : ""}${language ? ` in ${languageLabel(language)}` : ""} yet.`,
    });
  }
  const iv = imports?.values ?? {};
  const ie = imports?.errors ?? {};
  const body = html`<h1>Knowledge base</h1>
<p class="muted">Agents answer from published documents and cite them. <a href="/dashboard/knowledge/sources">Knowledge sources</a> keep documents in sync with a website or a help centre.</p>
<form method="get" action="/dashboard/knowledge" class="toolbar" role="search">
${field({ name: "q", label: "Search", type: "search", value: q })}
${select({
  name: "status",
  label: "Status",
  value: status ?? "",
  options: [
    { value: "", label: "Any status" },
    { value: "published", label: "Published" },
    { value: "draft", label: "Draft" },
  ],
})}
${select({
  name: "language",
  label: "Language",
  value: language ?? "",
  options: [{ value: "", label: "Any language" }, ...languages.map((l) => ({ value: l, label: languageLabel(l) }))],
  hint: q ? "Lists only: a search ranks every language." : undefined,
})}
<button type="submit" class="secondary">Search</button>
${manage ? html`<a class="button" href="/dashboard/knowledge/new">New document</a>` : ""}
<a class="button secondary" href="/dashboard/knowledge/synonyms">Synonyms</a>
${manage && ctx.can("inbox:view") ? html`<a class="button secondary" href="/dashboard/knowledge/gaps">Knowledge gaps</a>` : ""}
</form>
${table}
${pager("/dashboard/knowledge", { q, status, language }, page, hasMore)}
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
  return shellPage(ctx, { title: "Knowledge base", active: "knowledge", body, status: imports ? imports.status : 200 });
}

export function importUrl(ctx: DashboardContext, values: FormValues): Promise<Response> {
  return submitForm({
    values,
    validate: (v) => {
      const url = (v.url ?? "").trim();
      return { input: { url, ...(v.title?.trim() ? { title: v.title.trim() } : {}) }, errors: (url ? {} : { url: "Give the page's address." }) as FieldErrors };
    },
    call: (input) => importDocFromUrl(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), input, ctx.request.signal),
    done: (doc) => redirect(ctx.deps, `/dashboard/knowledge/${doc.id}`, `Imported “${doc.title}” (${doc.body.length} characters).`),
    render: (refused) => listPage(ctx, {}, { ...refused, which: "url" }),
    refused: (error) => importErrors(error, "url"),
  });
}

/** The file input sends only the file's name in a urlencoded form; its text comes in `content`. */
const fileNameOf = (v: FormValues) => (v.file_name ?? "").split(/[\\/]/).pop()!.trim();

export function importFile(ctx: DashboardContext, values: FormValues): Promise<Response> {
  return submitForm({
    values,
    validate: (v) => {
      const fileName = fileNameOf(v);
      const content = v.content ?? "";
      const errors: FieldErrors = {};
      if (!fileName) errors.file = `Choose a ${MARKDOWN_EXTENSIONS.join(", ")} file.`;
      else if (fileName.length > IMPORT_LIMITS.fileName) errors.file = `The file name is longer than ${IMPORT_LIMITS.fileName} characters.`;
      if (!content.trim()) errors.content = "The file is empty (or, without scripts, paste its text).";
      return { input: { file_name: fileName, content }, errors };
    },
    call: (input) => importMarkdownFile(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), input),
    done: (doc) => redirect(ctx.deps, `/dashboard/knowledge/${doc.id}`, `Imported “${doc.title}” from ${fileNameOf(values)}.`),
    render: (refused) => listPage(ctx, {}, { ...refused, which: "file" }),
    refused: (error) => importErrors(error, "file"),
  });
}
