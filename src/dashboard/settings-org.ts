// The settings sections under org:manage: widget keys with their install snippets, identity
// verification (a rotated secret shown once), allowed origins, the organisation's model, and the
// OAuth grants MCP clients hold.
import { orgLlmView } from "../agents/llm-settings.ts";
import { listGrants } from "../oauth/grants.ts";
import { identityView, listWidgetKeys, WIDGET_KEY_LIMITS } from "../orgs/widget-access.ts";
import { allowedOrigins, ORIGIN_LIMITS } from "../sdk/settings.ts";
import { type Html, html } from "../html/html.ts";
import { installSnippet } from "../widget/demo.ts";
import {
  actionButton,
  type DashboardContext,
  field,
  type FieldErrors,
  type FormValues,
  listTable,
  pageNumber,
  pageOf,
  pager,
  select,
  submit,
  textarea,
  when,
} from "./kit/index.ts";

/** What one answer of the settings page shows besides the sections: a refused form, or what exists in this answer only. */
export interface SettingsForms {
  values?: FormValues;
  errors?: FieldErrors;
  /** The identity secret just rotated: shown on this answer only. */
  secret?: string;
  /** The invitation just made: its link is shown on this answer only. */
  invite?: { email: string; url: string; emailed: boolean };
  /** Invite-form checkboxes as submitted (a re-rendered form keeps them). */
  inviteRoles?: string[];
  status?: number;
}

/** The sections under org:manage: widget keys, identity verification, origins, model, grants. */
export async function orgSettings(
  ctx: DashboardContext,
  query: Record<string, string | undefined>,
  forms: SettingsForms,
  only?: "widget" | "identity",
): Promise<Html> {
  const { deps, orgId } = ctx;
  const v = forms.values ?? {};
  const e = forms.errors ?? {};
  const keys = await listWidgetKeys(deps, orgId);
  const liveKeys = keys.filter((k) => !k.revoked_at);
  const keyPage = pageOf(
    keys.slice().sort((a, b) => Number(a.revoked_at !== null) - Number(b.revoked_at !== null)),
    pageNumber(query.keys_page),
    10,
  );
  const identity = await identityView(deps, orgId);
  const origins = (await allowedOrigins(deps, orgId)).allowed_origins;
  const grants = (await listGrants(deps, orgId, ctx.principal.member.id, true)).grants;
  const grantPage = pageOf(grants, pageNumber(query.grants_page));
  const llm = await orgLlmView(deps, orgId);

  const keysHtml = html`<section class="panel" aria-labelledby="keys-h"><h2 id="keys-h">Widget keys and install snippet</h2>
<p class="muted">Paste the snippet before <code>&lt;/body&gt;</code> on every page that shows the chat bubble. Keys are publishable; revoke one and the widget using it stops at once. ${liveKeys.length} of at most ${WIDGET_KEY_LIMITS.live} live keys.</p>
${keyPage.items.map(
  (
    k,
    i,
  ) => html`<div class="keyrow"><p><strong>${k.label || "Unlabelled key"}</strong> ${k.revoked_at ? html`<span class="badge danger">revoked ${when(k.revoked_at)}</span>` : html`<span class="badge ok">live</span>`} <span class="muted">created ${when(k.created_at)}</span></p>
${
  k.revoked_at
    ? html`<p><code>${k.key}</code></p>`
    : html`<label for="snippet-${i}">Install snippet for ${k.label || "this key"}</label><textarea id="snippet-${i}" class="snippet" rows="3" readonly>${installSnippet(deps.config.baseUrl, k.key, orgId)}</textarea>
<div class="actions"><button type="button" class="secondary" data-copy="snippet-${i}" hidden>Copy snippet</button>${actionButton(`/dashboard/settings/keys/${k.id}/revoke`, "Revoke", { kind: "danger", confirm: "Revoke this key? Sites using it stop showing the widget." })}</div>`
}</div>`,
)}
${keys.length === 0 ? html`<p>No widget keys yet.</p>` : ""}
${pager("/dashboard/settings", query, keyPage.page, keyPage.hasMore, "keys_page", "Widget key pages")}
<form method="post" action="/dashboard/settings/keys" class="toolbar" novalidate>
${field({ name: "label", label: "New key's label", value: v.label, error: e.label, maxLength: WIDGET_KEY_LIMITS.label, hint: "Where it is used, e.g. “Marketing site”." })}
${submit("Create key", { busy: "Creating…" })}
</form>
</section>`;
  const identityHtml = html`<section class="panel" aria-labelledby="identity-h"><h2 id="identity-h">Identity verification</h2>
<p>${identity.enabled ? html`<span class="badge ok">on</span> The widget accepts a signed-in customer only with a <code>user_token</code> signed with the secret.` : html`<span class="badge warn">off</span> Anyone can claim a <code>user_id</code> in the widget; switch this on before showing customer data.`}</p>
${
  forms.secret
    ? html`<div class="flash ok" role="status"><p><strong>New identity secret, shown this once.</strong> Store it in your backend now; the previous secret keeps verifying for 24 hours, unless you stop it sooner.</p><label for="new-secret">Identity secret</label><input id="new-secret" type="text" readonly value="${forms.secret}"><div class="actions"><button type="button" class="secondary" data-copy="new-secret" hidden>Copy secret</button></div></div>`
    : ""
}
${identity.previous_secret_expires_at ? html`<p class="hint" id="previous-secret">The previous secret also verifies until ${when(identity.previous_secret_expires_at)}, then it is refused.</p>` : ""}
<div class="actions">${actionButton("/dashboard/settings/identity", identity.enabled ? "Switch off" : "Switch on", { kind: identity.enabled ? "danger" : undefined, hidden: { enabled: identity.enabled ? "off" : "on" } })}${actionButton("/dashboard/settings/identity/rotate", "Rotate the secret", { confirm: "Make a new secret? The current one keeps verifying for 24 hours, unless you stop it sooner." })}${identity.has_previous_secret ? actionButton("/dashboard/settings/identity/clear-previous", "Stop accepting the previous secret", { kind: "danger" }) : ""}</div>
</section>`;
  const originsHtml = html`<section class="panel" aria-labelledby="origins-h"><h2 id="origins-h">Allowed origins</h2>
<form method="post" action="/dashboard/settings/origins" novalidate>
${textarea({ name: "origins", label: "Sites that may use the widget keys", value: v.origins ?? origins.join("\n"), error: e.origins, rows: 4, hint: `One origin a line, such as https://shop.example (no path). Empty: every site may. At most ${ORIGIN_LIMITS.origins}.` })}
<div class="actions">${submit("Save origins", { busy: "Saving…" })}</div>
</form>
</section>`;
  const llmHtml = html`<section class="panel" aria-labelledby="llm-h"><h2 id="llm-h">Model</h2>
<p class="muted">Answers now come from <strong>${llm.effective.provider}</strong>${llm.effective.model ? html` (${llm.effective.model})` : ""}, set by ${llm.effective.source === "org" ? "this organisation" : "the operator"}. An agent's own model, on its page, comes first.</p>
<form method="post" action="/dashboard/settings/llm" novalidate>
${select({
  name: "llm_provider",
  label: "Provider for every agent without its own",
  value: v.llm_provider ?? llm.override?.provider ?? "",
  error: e.llm_provider,
  options: [
    { value: "", label: `The operator's default (${llm.operator_default.provider})` },
    { value: "builtin", label: "Built-in (answers from the knowledge base, no key)" },
    { value: "openai", label: "OpenAI-compatible" },
    { value: "anthropic", label: "Anthropic" },
  ],
})}
<div class="grid2">
${field({ name: "llm_model", label: "Model", value: v.llm_model ?? llm.override?.model ?? "", error: e.llm_model })}
${field({ name: "llm_base_url", label: "Base URL", type: "url", value: v.llm_base_url ?? llm.override?.base_url ?? "", error: e.llm_base_url, hint: "Optional; https." })}
</div>
${field({ name: "llm_api_key", label: "API key", type: "password", value: "", error: e.llm_api_key, hint: llm.override?.api_key_set ? "A key is stored (never shown). Leave blank to keep it." : "Write-only: stored encrypted, never shown again." })}
<div class="actions">${submit("Save model", { busy: "Saving…" })}</div>
</form>
</section>`;
  const grantsHtml = html`<section class="panel" aria-labelledby="grants-h"><h2 id="grants-h">Connected AI clients (OAuth grants)</h2>
<p class="muted">MCP clients members have authorised to act for them. Revoking one ends its tokens at once.</p>
${listTable({
  caption: "OAuth grants",
  columns: ["Client", "Member", "Scopes", "Since", { label: "Actions", hidden: true }],
  rows: grantPage.items,
  row: (g) =>
    html`<tr><td>${g.client.name}</td><td>${g.member.email}</td><td>${g.scopes.map((s) => html`<span class="badge">${s}</span>`)}</td><td>${when(g.created_at)}</td><td>${actionButton(`/dashboard/settings/grants/${g.id}/revoke`, "Revoke", { kind: "danger", confirm: "Revoke this client's access?" })}</td></tr>`,
  empty: grants.length === 0 ? "No client holds a grant." : null,
})}
${pager("/dashboard/settings", query, grantPage.page, grantPage.hasMore, "grants_page", "Grant pages")}
</section>`;
  if (only === "widget")
    return html`${keysHtml}

${originsHtml}`;
  if (only === "identity") return identityHtml;
  return html`${keysHtml}

${identityHtml}

${originsHtml}

${llmHtml}

${grantsHtml}`;
}
