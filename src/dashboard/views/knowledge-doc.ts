// One document's page: its title and status, publish/unpublish and delete, the form (title,
// markdown text, source address, tags, status; read only without knowledge:manage) beside the
// markdown preview, and what follows it (its other languages). Also a new document's form.
import { attrs, type Html, html } from "../../html/html.ts";
import { renderMarkdown } from "../../html/markdown.ts";
import type { Doc } from "../../knowledge/docs.ts";
import { actionButton, errorSummary, type FieldErrors, field, type FormValues, select, submit, textarea } from "../kit/fields.ts";
import { badge } from "../kit/table.ts";

export function statusBadge(status: string): Html {
  return badge(status, status === "published" ? "ok" : "warn");
}

export interface DocEditorProps {
  /** The document, or null for a new one. */
  doc: Doc | null;
  manage: boolean;
  values: FormValues;
  errors: FieldErrors;
  titleMax: number;
  /** Whether the Preview button was pressed. */
  preview: boolean;
  /** The article on the public help centre, when it is there. */
  publicUrl: string | null;
  /** What follows the editor (the document's other languages). */
  after: Html | null;
}

function docActions(doc: Doc): Html {
  const publish = actionButton(`/dashboard/knowledge/${doc.id}/status`, doc.status === "published" ? "Unpublish" : "Publish", {
    hidden: { status: doc.status === "published" ? "draft" : "published" },
  });
  const remove = actionButton(`/dashboard/knowledge/${doc.id}/delete`, "Delete", {
    kind: "danger",
    confirm: "Delete this document? Agents stop citing it at once.",
  });
  return html`<div class="actions">${publish}${remove}</div>`;
}

function docForm(p: DocEditorProps): Html {
  const { doc, values, errors } = p;
  const action = doc ? `/dashboard/knowledge/${doc.id}` : "/dashboard/knowledge";
  const url = field({
    name: "url",
    label: "Source address (optional)",
    type: "url",
    value: values.url,
    error: errors.url,
    hint: "Cited with answers that use this document.",
  });
  const buttons = p.manage
    ? html`<div class="actions">${submit(doc ? "Save" : "Create document", { busy: "Saving…", name: "intent", value: "save" })}\
${submit("Preview", { kind: "secondary", name: "intent", value: "preview" })}</div>`
    : "";
  return html`<form method="post" action="${action}" novalidate>
<fieldset${attrs({ disabled: !p.manage })}><legend>Document</legend>
${field({ name: "title", label: "Title", value: values.title, error: errors.title, required: true, maxLength: p.titleMax })}
${textarea({ name: "body", label: "Text (markdown)", value: values.body, error: errors.body, rows: 16, required: true })}
${url}
${field({ name: "tags", label: "Tags", value: values.tags, error: errors.tags, hint: "Comma-separated." })}
${select({
  name: "status",
  label: "Status",
  value: values.status ?? "published",
  options: [
    { value: "published", label: "Published: agents use it" },
    { value: "draft", label: "Draft: not used yet" },
  ],
})}
</fieldset>
${buttons}
</form>`;
}

export function DocEditor(p: DocEditorProps): Html {
  const { doc } = p;
  const title = doc ? doc.title : "New document";
  const preview = p.preview || doc ? renderMarkdown(p.values.body ?? "") : html`<p class="muted">Press Preview to see the text rendered.</p>`;
  return html`<p><a href="/dashboard/knowledge">← Knowledge base</a></p>
<h1>${title} ${doc ? statusBadge(doc.status) : ""}</h1>
${p.publicUrl ? html`<p><a href="${p.publicUrl}">View on the help centre</a></p>` : ""}
${doc && p.manage ? docActions(doc) : ""}
${errorSummary(p.errors)}
<div class="grid2">
${docForm(p)}
<section aria-labelledby="preview-h"><h2 id="preview-h">Preview</h2><div class="preview">${preview}</div></section>
</div>
${p.after ?? ""}`;
}
