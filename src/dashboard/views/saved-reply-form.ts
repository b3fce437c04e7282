// A saved reply's form (Settings → Saved replies): its name and its text with the variables it may
// use; the same for adding one and editing one.
import { type Html, html } from "../../html/html.ts";
import { errorSummary, field, type FieldErrors, type FormValues, submit, textarea } from "../kit/fields.ts";

export const SAVED_REPLIES_PATH = "/dashboard/settings/saved-replies";

const VARIABLES = "Variables: {{customer.name}}, {{ticket.number}}, {{agent.name}} — filled in when the reply is inserted.";
const VARIABLES_HINT = `${VARIABLES} A fallback for a missing name: {{customer.name | "there"}}.`;
const NAME_HINT = "What the team picks it by in the reply form.";

export interface SavedReplyFormProps {
  action: string;
  label: string;
  values: FormValues;
  errors: FieldErrors;
  limits: { name: number; body: number };
}

export function SavedReplyForm({ action, label, values: v, errors: e, limits }: SavedReplyFormProps): Html {
  return html`${errorSummary(e)}
<form method="post" action="${action}" novalidate>
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: limits.name, hint: NAME_HINT })}
${textarea({ name: "body", label: "Text", value: v.body, error: e.body, rows: 6, maxLength: limits.body, hint: VARIABLES_HINT })}
<div class="actions">${submit(label, { busy: "Saving…" })}</div>
</form>`;
}
