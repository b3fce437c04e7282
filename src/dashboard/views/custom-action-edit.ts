// One custom action's edit form: every field a PATCH may change; the stored header names listed
// (their values never shown), each removable.
import type { readCustomAction } from "../../integrations/custom-actions.ts";
import { attrs, type Html, html } from "../../html/html.ts";
import { actionButton, checkbox, errorSummary, field, type FieldErrors, type FormValues, select, submit, textarea } from "../kit/fields.ts";

type CustomAction = Awaited<ReturnType<typeof readCustomAction>>;

export interface CustomActionEditProps {
  action: CustomAction;
  manage: boolean;
  values: FormValues;
  errors: FieldErrors;
  /** Stored headers ticked for removal in the refused post. */
  removed: ReadonlySet<string>;
  methods: readonly string[];
  limits: { headers: number; url: number; description: number };
}

const DELETE_CONFIRM = "Delete this action? Agents can no longer call it.";

function RequestFields({ values: v, errors: e, methods, limits, manage }: CustomActionEditProps): Html {
  return html`<div class="grid2">
${select({ name: "method", label: "Method", value: v.method, error: e.method, options: methods.map((m) => ({ value: m, label: m })) })}
${field({
  name: "url",
  label: "URL",
  type: "url",
  value: v.url,
  error: e.url,
  required: true,
  maxLength: limits.url,
  hint: "https; a new address passes the outbound guard before it is saved.",
})}
</div>
${textarea({
  name: "description",
  label: "Description",
  value: v.description,
  error: e.description,
  rows: 2,
  required: true,
  maxLength: limits.description,
  hint: "What the action does: the model reads this to decide when to call it.",
})}
${textarea({
  name: "input_schema",
  label: "Input schema (JSON)",
  value: v.input_schema,
  error: e.input_schema,
  rows: 8,
  hint: "A JSON Schema object for the arguments; empty: any object.",
})}
${checkbox({ name: "destructive", label: "Destructive: it changes or deletes data", checked: v.destructive === "on", disabled: !manage })}`;
}

function storedHeader(name: string, i: number, removed: ReadonlySet<string>, off: Html): Html {
  const box = html`<input type="checkbox" id="f-remove_header_${i}" name="remove_header" value="${name}"${attrs({ checked: removed.has(name) })}`;
  const label = html`<label for="f-remove_header_${i}">Remove <code>${name}</code></label>`;
  return html`<li><div class="check">${box} aria-describedby="stored-headers-hint"${off}>${label}<span class="badge">value set</span></div></li>`;
}

function HeaderFields({ action, errors: e, removed, limits }: CustomActionEditProps, off: Html): Html {
  const stored =
    action.header_names.length > 0
      ? html`<p class="hint" id="stored-headers-hint">Stored encrypted; values are never shown. Tick a header to remove it when you save.</p>
<ul class="checklist">${action.header_names.map((name, i) => storedHeader(name, i, removed, off))}</ul>`
      : html`<p class="hint">No headers stored.</p>`;
  const replaced = "One “Name: value” a line; a stored header of the same name is replaced.";
  const hint = `${replaced} Leave blank to keep the stored ones. At most ${limits.headers} headers in all.`;
  return html`${stored}
${textarea({ name: "headers", label: "Add or replace headers", value: "", error: e.headers, rows: 2, hint })}`;
}

const RENAME = html`to rename, create another action and delete this one.`;
const SLUG_STAYS = html`The slug is the action's name for agents and tokens, so it stays; ${RENAME}`;

export function CustomActionEdit(p: CustomActionEditProps): Html {
  const { action, manage } = p;
  const off = attrs({ disabled: !manage });
  const destructive = action.destructive ? html` <span class="badge danger">destructive</span>` : "";
  const cancel = html`<a class="button secondary" href="/dashboard/custom-actions">Cancel</a>`;
  const save = html`<div class="actions">${submit("Save changes", { busy: "Saving…" })}${cancel}</div>`;
  const viewOnly = html`<p class="muted">You can view this action; changing it needs the integrations:manage role.</p>`;
  const remove = actionButton(`/dashboard/custom-actions/${action.id}/delete`, "Delete this action", { kind: "danger", confirm: DELETE_CONFIRM });
  return html`<p><a href="/dashboard/custom-actions">← Custom actions</a></p>
<h1>Edit <code>${action.action_id}</code>${destructive}</h1>
<p class="muted">${SLUG_STAYS}</p>
${errorSummary(p.errors)}
<form method="post" action="/dashboard/custom-actions/${action.id}" novalidate>
<fieldset${off}><legend>Request</legend>
${RequestFields(p)}
</fieldset>
<fieldset${off}><legend>Headers</legend>
${HeaderFields(p, off)}
</fieldset>
${manage ? save : viewOnly}
</form>
${manage ? html`<div class="actions">${remove}</div>` : ""}`;
}
