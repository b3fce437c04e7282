// Settings → Saved replies: the org's snippets, each linked to its edit form and deletable, and
// the form adding one.
import type { SavedReply } from "../../inbox/saved-replies.ts";
import { type Html, html } from "../../html/html.ts";
import { actionButton, type FieldErrors, type FormValues } from "../kit/fields.ts";
import { listTable } from "../kit/table.ts";
import { SAVED_REPLIES_PATH as BASE, SavedReplyForm } from "./saved-reply-form.ts";

export interface SavedReplyListProps {
  rows: readonly SavedReply[];
  values: FormValues;
  errors: FieldErrors;
  limits: { name: number; body: number };
}

function row(r: SavedReply): Html {
  const text = r.body.length > 160 ? `${r.body.slice(0, 159)}…` : r.body;
  const remove = actionButton(`${BASE}/${r.id}/delete`, "Delete", { kind: "danger", confirm: `Delete the saved reply “${r.name}”?` });
  return html`<tr><td><a href="${BASE}/${r.id}">${r.name}</a></td><td class="turn-text">${text}</td><td>${remove}</td></tr>`;
}

const INTRO = html`Snippets the team inserts into a reply from a ticket's reply form (or by typing <kbd>/</kbd> in an empty reply).`;

export function SavedReplyList({ rows, values, errors, limits }: SavedReplyListProps): Html {
  return html`<p><a href="/dashboard/settings">← Settings</a></p>
<h1>Saved replies</h1>
<p class="muted">${INTRO}</p>
${listTable({
  caption: "Saved replies",
  columns: ["Name", "Text", { label: "Actions", hidden: true }],
  rows,
  row,
  empty: "No saved replies yet.",
})}
<section class="panel" aria-labelledby="new-reply"><h2 id="new-reply">New saved reply</h2>
${SavedReplyForm({ action: BASE, label: "Add saved reply", values, errors, limits })}
</section>`;
}
