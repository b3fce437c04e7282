// The knowledge base's list: the search and filter toolbar (with the links to a new document,
// synonyms and gaps), then either search results (ranked as the agents find them) or the documents
// by status and language, the pager, and the import forms.
import { type Html, html } from "../../html/html.ts";
import { field, select } from "../kit/fields.ts";
import { languageLabel } from "../kit/language-label.ts";
import { listTable, pager, when } from "../kit/table.ts";
import { statusBadge } from "./knowledge-doc.ts";
import { KnowledgeImports, type KnowledgeImportsProps } from "./knowledge-imports.ts";

export interface DocRow {
  id: string;
  title: string;
  url: string | null;
  language: string | null;
  status: string;
  tags: string[];
  updatedAt: Date;
}

export interface KnowledgeListProps {
  q: string;
  status: "published" | "draft" | undefined;
  language: string | undefined;
  /** The languages the filter offers. */
  languages: string[];
  /** A search's hits (`q` set), or a page of documents. */
  list: { kind: "search"; hits: { id: string; title: string; snippet: string }[]; none: boolean } | { kind: "docs"; rows: DocRow[] };
  page: number;
  hasMore: boolean;
  manage: boolean;
  /** Whether the gaps link shows (it needs inbox:view besides knowledge:manage). */
  gaps: boolean;
  imports: KnowledgeImportsProps;
}

function toolbar(p: KnowledgeListProps): Html {
  const statuses = [
    { value: "", label: "Any status" },
    { value: "published", label: "Published" },
    { value: "draft", label: "Draft" },
  ];
  const languages = [{ value: "", label: "Any language" }, ...p.languages.map((l) => ({ value: l, label: languageLabel(l) }))];
  return html`<form method="get" action="/dashboard/knowledge" class="toolbar" role="search">
${field({ name: "q", label: "Search", type: "search", value: p.q })}
${select({ name: "status", label: "Status", value: p.status ?? "", options: statuses })}
${select({
  name: "language",
  label: "Language",
  value: p.language ?? "",
  options: languages,
  hint: p.q ? "Lists only: a search ranks every language." : undefined,
})}
<button type="submit" class="secondary">Search</button>
${p.manage ? html`<a class="button" href="/dashboard/knowledge/new">New document</a>` : ""}
<a class="button secondary" href="/dashboard/knowledge/synonyms">Synonyms</a>
${p.gaps ? html`<a class="button secondary" href="/dashboard/knowledge/gaps">Knowledge gaps</a>` : ""}
</form>`;
}

function docRow(d: DocRow): Html {
  return html`<tr><td><a href="/dashboard/knowledge/${d.id}">${d.title}</a>${d.url ? html`<div class="hint">${d.url}</div>` : ""}</td>\
<td>${languageLabel(d.language)}</td><td>${statusBadge(d.status)}</td><td>${d.tags.join(", ") || "—"}</td><td>${when(d.updatedAt)}</td></tr>`;
}

function table(p: KnowledgeListProps): Html {
  if (p.list.kind === "search")
    return html`<p class="muted">${p.list.none ? "No published document matches." : "Published documents, best match first."}</p>
${listTable({
  caption: "Search results",
  columns: ["Document", "Match"],
  rows: p.list.hits,
  row: (h) => html`<tr><td><a href="/dashboard/knowledge/${h.id}">${h.title}</a></td><td class="muted">${h.snippet}</td></tr>`,
  empty: null,
})}`;
  return listTable({
    caption: "Documents",
    columns: ["Title", "Language", "Status", "Tags", "Updated"],
    rows: p.list.rows,
    row: docRow,
    empty: `No documents${p.status ? ` with status ${p.status}` : ""}${p.language ? ` in ${languageLabel(p.language)}` : ""} yet.`,
  });
}

export function KnowledgeList(p: KnowledgeListProps): Html {
  return html`<h1>Knowledge base</h1>
<p class="muted">Agents answer from published documents and cite them. \
<a href="/dashboard/knowledge/sources">Knowledge sources</a> keep documents in sync with a website or a help centre.</p>
${toolbar(p)}
${table(p)}
${pager("/dashboard/knowledge", { q: p.q, status: p.status, language: p.language }, p.page, p.hasMore)}
${p.manage ? KnowledgeImports(p.imports) : ""}`;
}
