// Dashboard: uploading files as documents from the knowledge sources page (README "Knowledge
// sources"). The form stays urlencoded: the page's script reads the chosen files and adds each one's
// name and base64 content as fields (`file_name`, `file_base64`), and this route hands them to
// src/sources/files.ts as POST /api/knowledge/files does (docs/decisions.md "Knowledge sources").
// Without the script the browser sends no contents, and the form says so by its field.
import type { Html } from "../html/html.ts";
import { html } from "../html/html.ts";
import { memberActor } from "../kit/actor.ts";
import { FILE_LIMITS, FILE_TYPES } from "../sources/file-formats.ts";
import { importFiles } from "../sources/files.ts";
import {
  type DashboardContext,
  errorSummary,
  type FieldErrors,
  formBody,
  formList,
  type FormValues,
  redirect,
  type Refused,
  submit,
  submitForm,
} from "./kit/index.ts";

export function filesForm(e: FieldErrors): Html {
  return html`<section class="panel" aria-labelledby="add-files-h"><h2 id="add-files-h">Upload files</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/knowledge/sources/files" novalidate data-file-upload><input type="hidden" name="upload" value="files">
<div class="field${e.files ? " has-error" : ""}"><label for="f-files">Files</label><input type="file" id="f-files" multiple accept="${FILE_TYPES.join(",")}" aria-describedby="f-files-hint${e.files ? " f-files-error" : ""}"><p class="hint" id="f-files-hint">PDF, DOCX, HTML, Markdown, plain text or a zip of them; up to ${FILE_LIMITS.files} files, 1 MiB in all from here (larger uploads: POST /api/knowledge/files). Each becomes a document titled from its first heading. Reading the files needs the page's script.</p>${e.files ? html`<p class="field-error" id="f-files-error">${e.files}</p>` : ""}<div data-file-fields hidden></div></div>
<div class="actions">${submit("Upload", { busy: "Uploading…" })}</div>
</form></section>`;
}

export const FilesBody = formBody({ text: 2 * 1024 * 1024, item: 2 * 1024 * 1024, items: FILE_LIMITS.files });

export function uploadFiles(ctx: DashboardContext, body: unknown, render: (refused: Refused) => Promise<Response>): Promise<Response> {
  const names = formList(body, "file_name");
  const contents = formList(body, "file_base64");
  return submitForm({
    values: {} as FormValues,
    validate: () => {
      const errors: FieldErrors = {};
      if (contents.length === 0 || names.length !== contents.length)
        errors.files = "Choose one or more files (the page's script reads them; without it, use POST /api/knowledge/files).";
      return { input: { files: names.map((name, i) => ({ name, content_base64: contents[i]! })) }, errors };
    },
    call: (input) => importFiles(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), input),
    done: ({ docs, failed }) => {
      const made = `${docs.length} ${docs.length === 1 ? "file" : "files"} imported as documents`;
      const text = failed.length === 0 ? `${made}.` : `${made}; not imported: ${failed.map((f) => `${f.file} (${f.reason})`).join("; ")}.`;
      return redirect(ctx.deps, "/dashboard/knowledge/sources", { kind: failed.length === 0 ? "ok" : "error", text: text.slice(0, 1000) });
    },
    render,
    // Every file's reason, in one message by the field.
    refused: (error) => (error.status === 400 ? { files: (error.details ?? []).map((d) => d.message).join("; ") || error.message } : null),
  });
}
