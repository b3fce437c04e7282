// The widget's settings: its keys, each live one with its install snippet ready to copy (a revoked
// one shown as revoked), the form making a new key, and the origins allowed to use the keys.
import { type Html, html } from "../../html/html.ts";
import type { listWidgetKeys } from "../../orgs/widget-access.ts";
import { actionButton, type FieldErrors, field, type FormValues, submit, textarea } from "../kit/fields.ts";
import { pager, when } from "../kit/table.ts";

type WidgetKey = Awaited<ReturnType<typeof listWidgetKeys>>[number];

export interface WidgetKeysProps {
  /** This page of keys (live ones first), each with its install snippet. */
  keys: { key: WidgetKey; snippet: string }[];
  /** How many keys exist, and how many are live. */
  total: number;
  live: number;
  limits: { label: number; live: number };
  query: Record<string, string | undefined>;
  page: number;
  hasMore: boolean;
  values: FormValues;
  errors: FieldErrors;
}

function keyRow(k: WidgetKey, snippet: string, i: number): Html {
  const state = k.revoked_at ? html`<span class="badge danger">revoked ${when(k.revoked_at)}</span>` : html`<span class="badge ok">live</span>`;
  const revoke = actionButton(`/dashboard/settings/keys/${k.id}/revoke`, "Revoke", {
    kind: "danger",
    confirm: "Revoke this key? Sites using it stop showing the widget.",
  });
  const use = k.revoked_at
    ? html`<p><code>${k.key}</code></p>`
    : html`<label for="snippet-${i}">Install snippet for ${k.label || "this key"}</label>\
<textarea id="snippet-${i}" class="snippet" rows="3" readonly>${snippet}</textarea>
<div class="actions"><button type="button" class="secondary" data-copy="snippet-${i}" hidden>Copy snippet</button>${revoke}</div>`;
  return html`<div class="keyrow"><p><strong>${k.label || "Unlabelled key"}</strong> ${state} <span class="muted">created ${when(k.created_at)}</span></p>
${use}</div>`;
}

export function WidgetKeys(p: WidgetKeysProps): Html {
  const { values: v, errors: e } = p;
  return html`<section class="panel" aria-labelledby="keys-h"><h2 id="keys-h">Widget keys and install snippet</h2>
<p class="muted">Paste the snippet before <code>&lt;/body&gt;</code> on every page that shows the chat bubble. \
Keys are publishable; revoke one and the widget using it stops at once. ${p.live} of at most ${p.limits.live} live keys.</p>
${p.keys.map((k, i) => keyRow(k.key, k.snippet, i))}
${p.total === 0 ? html`<p>No widget keys yet.</p>` : ""}
${pager("/dashboard/settings", p.query, p.page, p.hasMore, "keys_page", "Widget key pages")}
<form method="post" action="/dashboard/settings/keys" class="toolbar" novalidate>
${field({
  name: "label",
  label: "New key's label",
  value: v.label,
  error: e.label,
  maxLength: p.limits.label,
  hint: "Where it is used, e.g. “Marketing site”.",
})}
${submit("Create key", { busy: "Creating…" })}
</form>
</section>`;
}

export interface AllowedOriginsProps {
  origins: string[];
  max: number;
  values: FormValues;
  errors: FieldErrors;
}

export function AllowedOrigins(p: AllowedOriginsProps): Html {
  const origins = textarea({
    name: "origins",
    label: "Sites that may use the widget keys",
    value: p.values.origins ?? p.origins.join("\n"),
    error: p.errors.origins,
    rows: 4,
    hint: `One origin a line, such as https://shop.example (no path). Empty: every site may. At most ${p.max}.`,
  });
  return html`<section class="panel" aria-labelledby="origins-h"><h2 id="origins-h">Allowed origins</h2>
<form method="post" action="/dashboard/settings/origins" novalidate>
${origins}
<div class="actions">${submit("Save origins", { busy: "Saving…" })}</div>
</form>
</section>`;
}
