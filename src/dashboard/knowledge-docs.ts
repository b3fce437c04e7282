// One document in the dashboard: its form (title, markdown text, source address, tags, status) with
// the markdown preview, the form's values as the service's input, and import errors by field.
import type { AppError } from "../errors.ts";
import { attrs, type Html, html } from "../html/html.ts";
import { renderMarkdown } from "../html/markdown.ts";
import { type Doc, DOC_LIMITS } from "../knowledge/docs.ts";
import {
  actionButton,
  badge,
  type DashboardContext,
  detailErrors,
  errorSummary,
  field,
  type FieldErrors,
  type FormValues,
  select,
  shellPage,
  submit,
  textarea,
} from "./kit/index.ts";

export function statusBadge(status: string): Html {
  return badge(status, status === "published" ? "ok" : "warn");
}

function tagsOf(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The document a form describes, or the errors next to its fields. */
export function docFrom(v: FormValues): {
  input: { title: string; body: string; url: string | null; tags: string[]; status: "published" | "draft" };
  errors: FieldErrors;
} {
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

export function importErrors(error: AppError, fallback: string): FieldErrors {
  return detailErrors(error, ([first]) => (first === "content" ? "file" : (first ?? fallback)), fallback);
}

export function editorPage(
  ctx: DashboardContext,
  doc: Doc | null,
  values: FormValues,
  errors: FieldErrors,
  options: { preview?: boolean; status?: number; publicUrl?: string | null; after?: Html } = {},
): Response {
  const manage = ctx.can("knowledge:manage");
  const action = doc ? `/dashboard/knowledge/${doc.id}` : "/dashboard/knowledge";
  const title = doc ? doc.title : "New document";
  const body = html`<p><a href="/dashboard/knowledge">← Knowledge base</a></p>
<h1>${title} ${doc ? statusBadge(doc.status) : ""}</h1>
${options.publicUrl ? html`<p><a href="${options.publicUrl}">View on the help centre</a></p>` : ""}
${doc && manage ? html`<div class="actions">${actionButton(`/dashboard/knowledge/${doc.id}/status`, doc.status === "published" ? "Unpublish" : "Publish", { hidden: { status: doc.status === "published" ? "draft" : "published" } })}${actionButton(`/dashboard/knowledge/${doc.id}/delete`, "Delete", { kind: "danger", confirm: "Delete this document? Agents stop citing it at once." })}</div>` : ""}
${errorSummary(errors)}
<div class="grid2">
<form method="post" action="${action}" novalidate>
<fieldset${attrs({ disabled: !manage })}><legend>Document</legend>
${field({ name: "title", label: "Title", value: values.title, error: errors.title, required: true, maxLength: DOC_LIMITS.title })}
${textarea({ name: "body", label: "Text (markdown)", value: values.body, error: errors.body, rows: 16, required: true })}
${field({ name: "url", label: "Source address (optional)", type: "url", value: values.url, error: errors.url, hint: "Cited with answers that use this document." })}
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
${manage ? html`<div class="actions">${submit(doc ? "Save" : "Create document", { busy: "Saving…", name: "intent", value: "save" })}${submit("Preview", { kind: "secondary", name: "intent", value: "preview" })}</div>` : ""}
</form>
<section aria-labelledby="preview-h"><h2 id="preview-h">Preview</h2><div class="preview">${options.preview || doc ? renderMarkdown(values.body ?? "") : html`<p class="muted">Press Preview to see the text rendered.</p>`}</div></section>
</div>
${options.after ?? ""}`;
  return shellPage(ctx, { title, active: "knowledge", body, status: options.status ?? 200 });
}

export function valuesOf(doc: Doc): FormValues {
  return { title: doc.title, body: doc.body, url: doc.url ?? "", tags: doc.tags.join(", "), status: doc.status };
}
