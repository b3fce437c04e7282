// One document in the dashboard: its page (views/knowledge-doc.ts: the form with the markdown
// preview), the form's values as the service's input, and import errors by field.
import type { AppError } from "../errors.ts";
import type { Html } from "../html/html.ts";
import { type Doc, DOC_LIMITS } from "../knowledge/docs.ts";
import { type DashboardContext, detailErrors, type FieldErrors, type FormValues, shellPage } from "./kit/index.ts";
import { DocEditor } from "./views/knowledge-doc.ts";

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
  const body = DocEditor({
    doc,
    manage: ctx.can("knowledge:manage"),
    values,
    errors,
    titleMax: DOC_LIMITS.title,
    preview: options.preview ?? false,
    publicUrl: options.publicUrl ?? null,
    after: options.after ?? null,
  });
  return shellPage(ctx, { title: doc ? doc.title : "New document", active: "knowledge", body, status: options.status ?? 200 });
}

export function valuesOf(doc: Doc): FormValues {
  return { title: doc.title, body: doc.body, url: doc.url ?? "", tags: doc.tags.join(", "), status: doc.status };
}
