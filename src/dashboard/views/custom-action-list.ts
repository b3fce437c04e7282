// The custom actions list, with the form creating one.
import type { readCustomAction } from "../../integrations/custom-actions.ts";
import { type Html, html } from "../../html/html.ts";
import { actionButton, checkbox, errorSummary, field, type FieldErrors, type FormValues, select, submit, textarea } from "../kit/fields.ts";
import { listTable, pager } from "../kit/table.ts";

type CustomAction = Awaited<ReturnType<typeof readCustomAction>>;

export interface CustomActionListProps {
  /** This page's actions; `none`: the org has none at all. */
  actions: readonly CustomAction[];
  none: boolean;
  query: Record<string, string | undefined>;
  page: number;
  hasMore: boolean;
  manage: boolean;
  values: FormValues;
  errors: FieldErrors;
  methods: readonly string[];
}

const SLUG_HINT = "Lower-case letters, digits and _, starting with a letter.";
const DELETE_CONFIRM = "Delete this action? Agents can no longer call it.";

function row(a: CustomAction, manage: boolean): Html {
  const destructive = a.destructive ? html` <span class="badge danger">destructive</span>` : "";
  const name = html`<a href="/dashboard/custom-actions/${a.id}"><code>${a.action_id}</code></a>${destructive}`;
  const edit = html`<a class="button secondary" href="/dashboard/custom-actions/${a.id}">Edit<span class="sr-only"> ${a.action_id}</span></a>`;
  const remove = actionButton(`/dashboard/custom-actions/${a.id}/delete`, "Delete", { kind: "danger", confirm: DELETE_CONFIRM });
  const actions = manage ? html`<td><div class="actions">${edit}${remove}</div></td>` : "";
  const request = html`<code>${a.method} ${a.url}</code>`;
  const headers = a.header_names.join(", ") || "—";
  return html`<tr><td>${name}<div class="hint">${a.description.slice(0, 200)}</div></td><td>${request}</td><td>${headers}</td>${actions}</tr>`;
}

function NewActionForm({ values: v, errors: e, methods }: CustomActionListProps): Html {
  return html`<section class="panel" aria-labelledby="new-action"><h2 id="new-action">New custom action</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/custom-actions" novalidate>
<div class="grid2">
${field({ name: "slug", label: "Slug", value: v.slug, error: e.slug, required: true, maxLength: 32, hint: SLUG_HINT })}
${select({ name: "method", label: "Method", value: v.method, error: e.method, options: methods.map((m) => ({ value: m, label: m })) })}
</div>
${field({ name: "url", label: "URL", type: "url", value: v.url, error: e.url, required: true, hint: "https; called through the outbound guard." })}
${textarea({
  name: "description",
  label: "Description",
  value: v.description,
  error: e.description,
  rows: 2,
  required: true,
  hint: "What the action does: the model reads this to decide when to call it.",
})}
${textarea({
  name: "headers",
  label: "Headers",
  value: "",
  error: e.headers,
  rows: 2,
  hint: "One “Name: value” a line, e.g. Authorization: Bearer …; stored encrypted, never shown again.",
})}
${textarea({
  name: "input_schema",
  label: "Input schema (JSON, optional)",
  value: v.input_schema,
  error: e.input_schema,
  rows: 3,
  hint: "A JSON Schema object for the arguments; empty: any object.",
})}
${checkbox({ name: "destructive", label: "Destructive: it changes or deletes data", checked: v.destructive === "on" })}
<div class="actions">${submit("Create action", { busy: "Creating…" })}</div>
</form></section>`;
}

const INTRO = html`HTTP endpoints of your own systems that agents may call as <code>custom.&lt;slug&gt;</code>.`;

export function CustomActionList(p: CustomActionListProps): Html {
  return html`<h1>Custom actions</h1>
<p class="muted">${INTRO} Switch each on per agent in the agent's actions.</p>
${listTable({
  caption: "Custom actions",
  columns: ["Action", "Request", "Headers", ...(p.manage ? [{ label: "Actions", hidden: true as const }] : [])],
  rows: p.actions,
  row: (a) => row(a, p.manage),
  empty: p.none ? "No custom actions." : null,
})}
${pager("/dashboard/custom-actions", p.query, p.page, p.hasMore)}
${p.manage ? NewActionForm(p) : ""}`;
}
