// The knowledge base's list: documents by status, a search with the ranking the agents use, and the
// two import forms (a web page fetched through the outbound guard, or a markdown file's text), through
// src/knowledge/docs.ts and src/knowledge/docs-import.ts as /api/docs and the setup_* tools do.
import { memberActor } from "../kit/actor.ts";
import { docLanguages, listDocs, UNKNOWN_LANGUAGE } from "../knowledge/docs.ts";
import { normalizeLanguage } from "../kit/language.ts";
import { searchIndex } from "../knowledge/tools.ts";
import { IMPORT_LIMITS, importDocFromUrl, importMarkdownFile, MARKDOWN_EXTENSIONS } from "../knowledge/docs-import.ts";
import { type DashboardContext, type FieldErrors, type FormValues, PAGE_SIZE, pageNumber, redirect, type Refused, shellPage, submitForm } from "./kit/index.ts";
import { importErrors } from "./knowledge-docs.ts";
import { KnowledgeList, type KnowledgeListProps } from "./views/knowledge-list.ts";

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
  let list: KnowledgeListProps["list"];
  let hasMore = false;
  if (q) {
    // Search ranks published documents the way an agent finds them; shown one page at a time.
    const hits = await searchIndex(ctx.deps, ctx.orgId, q, page * PAGE_SIZE + 1);
    hasMore = hits.length > page * PAGE_SIZE;
    list = { kind: "search", hits: hits.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE), none: hits.length === 0 };
  } else {
    const rows = await listDocs(ctx.deps, ctx.orgId, { status, language, limit: PAGE_SIZE + 1, offset: (page - 1) * PAGE_SIZE });
    hasMore = rows.length > PAGE_SIZE;
    list = { kind: "docs", rows: rows.slice(0, PAGE_SIZE) };
  }
  const body = KnowledgeList({
    q,
    status,
    language,
    languages,
    list,
    page,
    hasMore,
    manage,
    gaps: manage && ctx.can("inbox:view"),
    imports: { refused: imports ?? null, extensions: MARKDOWN_EXTENSIONS },
  });
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
