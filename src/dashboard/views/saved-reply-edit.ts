// One saved reply's edit form.
import type { SavedReply } from "../../inbox/saved-replies.ts";
import { type Html, html } from "../../html/html.ts";
import type { FieldErrors, FormValues } from "../kit/fields.ts";
import { SAVED_REPLIES_PATH as BASE, SavedReplyForm } from "./saved-reply-form.ts";

export interface SavedReplyEditProps {
  row: SavedReply;
  values: FormValues;
  errors: FieldErrors;
  limits: { name: number; body: number };
}

export function SavedReplyEdit({ row, values, errors, limits }: SavedReplyEditProps): Html {
  return html`<p><a href="${BASE}">← Saved replies</a></p>
<h1>${row.name}</h1>
${SavedReplyForm({ action: `${BASE}/${row.id}`, label: "Save", values, errors, limits })}`;
}
