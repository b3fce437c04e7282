// Dashboard: uploading files as documents from the knowledge sources page (README "Knowledge
// sources"). The form stays urlencoded: the page's script reads the chosen files and adds each one's
// name and base64 content as fields (`file_name`, `file_base64`), and this route hands them to
// src/sources/files.ts as POST /api/knowledge/files does (docs/decisions.md "Knowledge sources").
// Without the script the browser sends no contents, and the form says so by its field.
import { memberActor } from "../kit/actor.ts";
import { FILE_LIMITS } from "../sources/file-formats.ts";
import { importFiles } from "../sources/files.ts";
import { type DashboardContext, type FieldErrors, formBody, formList, type FormValues, redirect, type Refused, submitForm } from "./kit/index.ts";

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
