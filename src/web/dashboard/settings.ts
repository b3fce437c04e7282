// Dashboard: settings (issue #14), role org:manage. Widget keys (create, revoke) with the install
// snippet ready to copy, identity verification (switch, rotate with the new secret shown once,
// clear the previous secret), allowed origins, OAuth grants held by MCP clients (list, revoke),
// members and their roles (read only). Through src/orgs/widget-access.ts, src/widget/settings.ts
// and src/oauth/grants.ts, as /api/widget/* and /api/oauth/grants do.
import { asc, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import { memberActor } from "../../activity/actor.ts";
import type { ProviderKind } from "../../agents/llm/types.ts";
import { AGENT_LIMITS, clearOrgLlm, orgLlmView, setOrgLlm } from "../../agents/service.ts";
import { members, memberships } from "../../db/schema/index.ts";
import type { Deps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { listGrants, revokeGrantOfOrg } from "../../oauth/grants.ts";
import { clearPreviousIdentitySecret, createWidgetKey, identityView, listWidgetKeys, revokeWidgetKey, rotateIdentitySecret, setIdentityVerification, WIDGET_KEY_LIMITS } from "../../orgs/widget-access.ts";
import { allowedOrigins, ORIGIN_LIMITS, setAllowedOrigins } from "../../widget/settings.ts";
import { html } from "../html.ts";
import { installSnippet } from "../widget/demo.ts";
import { actionButton, type DashboardContext, errorSummary, field, type FieldErrors, formValues, type FormValues, pageNumber, pageOf, pager, redirect, select, shellPage, submit, textarea, when, withMember, formBody, IdParams } from "./shell.ts";

interface SettingsForms {
  values?: FormValues;
  errors?: FieldErrors;
  /** The identity secret just rotated: shown on this answer only. */
  secret?: string;
  status?: number;
}

async function settingsPage(ctx: DashboardContext, query: Record<string, string | undefined>, forms: SettingsForms = {}): Promise<Response> {
  const { deps, orgId } = ctx;
  const v = forms.values ?? {};
  const e = forms.errors ?? {};
  const keys = await listWidgetKeys(deps, orgId);
  const liveKeys = keys.filter((k) => !k.revoked_at);
  const keyPage = pageOf(keys.slice().sort((a, b) => Number(a.revoked_at !== null) - Number(b.revoked_at !== null)), pageNumber(query.keys_page), 10);
  const identity = await identityView(deps, orgId);
  const origins = (await allowedOrigins(deps, orgId)).allowed_origins;
  const grants = (await listGrants(deps, orgId, ctx.principal.member.id, true)).grants;
  const grantPage = pageOf(grants, pageNumber(query.grants_page));
  const people = await deps.db
    .select({ email: members.email, name: members.name, roles: memberships.roles, since: memberships.createdAt })
    .from(memberships)
    .innerJoin(members, eq(members.id, memberships.memberId))
    .where(eq(memberships.orgId, orgId))
    .orderBy(asc(members.email));
  const peoplePage = pageOf(people, pageNumber(query.members_page));
  const llm = await orgLlmView(deps, orgId);

  const body = html`<h1>Settings</h1>
<section class="panel" aria-labelledby="keys-h"><h2 id="keys-h">Widget keys and install snippet</h2>
<p class="muted">Paste the snippet before <code>&lt;/body&gt;</code> on every page that shows the chat bubble. Keys are publishable; revoke one and the widget using it stops at once. ${liveKeys.length} of at most ${WIDGET_KEY_LIMITS.live} live keys.</p>
${keyPage.items.map(
  (k, i) => html`<div class="keyrow"><p><strong>${k.label || "Unlabelled key"}</strong> ${k.revoked_at ? html`<span class="badge danger">revoked ${when(k.revoked_at)}</span>` : html`<span class="badge ok">live</span>`} <span class="muted">created ${when(k.created_at)}</span></p>
${k.revoked_at ? html`<p><code>${k.key}</code></p>` : html`<label for="snippet-${i}">Install snippet for ${k.label || "this key"}</label><textarea id="snippet-${i}" class="snippet" rows="3" readonly>${installSnippet(deps.config.baseUrl, k.key, orgId)}</textarea>
<div class="actions"><button type="button" class="secondary" data-copy="snippet-${i}" hidden>Copy snippet</button>${actionButton(`/dashboard/settings/keys/${k.id}/revoke`, "Revoke", { kind: "danger", confirm: "Revoke this key? Sites using it stop showing the widget." })}</div>`}</div>`,
)}
${keys.length === 0 ? html`<p>No widget keys yet.</p>` : ""}
${pager("/dashboard/settings", query, keyPage.page, keyPage.hasMore, "keys_page", "Widget key pages")}
<form method="post" action="/dashboard/settings/keys" class="toolbar" novalidate>
${field({ name: "label", label: "New key's label", value: v.label, error: e.label, maxLength: WIDGET_KEY_LIMITS.label, hint: "Where it is used, e.g. “Marketing site”." })}
${submit("Create key", { busy: "Creating…" })}
</form>
</section>

<section class="panel" aria-labelledby="identity-h"><h2 id="identity-h">Identity verification</h2>
<p>${identity.enabled ? html`<span class="badge ok">on</span> The widget accepts a signed-in customer only with a <code>user_token</code> signed with the secret.` : html`<span class="badge warn">off</span> Anyone can claim a <code>user_id</code> in the widget; switch this on before showing customer data.`}</p>
${
  forms.secret
    ? html`<div class="flash ok" role="status"><p><strong>New identity secret, shown this once.</strong> Store it in your backend now; the previous secret keeps verifying until you clear it.</p><label for="new-secret">Identity secret</label><input id="new-secret" type="text" readonly value="${forms.secret}"><div class="actions"><button type="button" class="secondary" data-copy="new-secret" hidden>Copy secret</button></div></div>`
    : ""
}
<div class="actions">${actionButton("/dashboard/settings/identity", identity.enabled ? "Switch off" : "Switch on", { kind: identity.enabled ? "danger" : undefined, hidden: { enabled: identity.enabled ? "off" : "on" } })}${actionButton("/dashboard/settings/identity/rotate", "Rotate the secret", { confirm: "Make a new secret? The current one keeps verifying until you clear it." })}${identity.has_previous_secret ? actionButton("/dashboard/settings/identity/clear-previous", "Stop accepting the previous secret", { kind: "danger" }) : ""}</div>
</section>

<section class="panel" aria-labelledby="origins-h"><h2 id="origins-h">Allowed origins</h2>
<form method="post" action="/dashboard/settings/origins" novalidate>
${textarea({ name: "origins", label: "Sites that may use the widget keys", value: v.origins ?? origins.join("\n"), error: e.origins, rows: 4, hint: `One origin a line, such as https://shop.example (no path). Empty: every site may. At most ${ORIGIN_LIMITS.origins}.` })}
<div class="actions">${submit("Save origins", { busy: "Saving…" })}</div>
</form>
</section>

<section class="panel" aria-labelledby="llm-h"><h2 id="llm-h">Model</h2>
<p class="muted">Answers now come from <strong>${llm.effective.provider}</strong>${llm.effective.model ? html` (${llm.effective.model})` : ""}, set by ${llm.effective.source === "org" ? "this organisation" : "the operator"}. An agent's own model, on its page, comes first.</p>
<form method="post" action="/dashboard/settings/llm" novalidate>
${select({ name: "llm_provider", label: "Provider for every agent without its own", value: v.llm_provider ?? llm.override?.provider ?? "", error: e.llm_provider, options: [{ value: "", label: `The operator's default (${llm.operator_default.provider})` }, { value: "builtin", label: "Built-in (answers from the knowledge base, no key)" }, { value: "openai", label: "OpenAI-compatible" }, { value: "anthropic", label: "Anthropic" }] })}
<div class="grid2">
${field({ name: "llm_model", label: "Model", value: v.llm_model ?? llm.override?.model ?? "", error: e.llm_model })}
${field({ name: "llm_base_url", label: "Base URL", type: "url", value: v.llm_base_url ?? llm.override?.base_url ?? "", error: e.llm_base_url, hint: "Optional; https." })}
</div>
${field({ name: "llm_api_key", label: "API key", type: "password", value: "", error: e.llm_api_key, hint: llm.override?.api_key_set ? "A key is stored (never shown). Leave blank to keep it." : "Write-only: stored encrypted, never shown again." })}
<div class="actions">${submit("Save model", { busy: "Saving…" })}</div>
</form>
</section>

<section class="panel" aria-labelledby="grants-h"><h2 id="grants-h">Connected AI clients (OAuth grants)</h2>
<p class="muted">MCP clients members have authorised to act for them. Revoking one ends its tokens at once.</p>
<table><caption class="sr-only">OAuth grants</caption><thead><tr><th scope="col">Client</th><th scope="col">Member</th><th scope="col">Scopes</th><th scope="col">Since</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${grantPage.items.map((g) => html`<tr><td>${g.client.name}</td><td>${g.member.email}</td><td>${g.scopes.map((s) => html`<span class="badge">${s}</span>`)}</td><td>${when(g.created_at)}</td><td>${actionButton(`/dashboard/settings/grants/${g.id}/revoke`, "Revoke", { kind: "danger", confirm: "Revoke this client's access?" })}</td></tr>`)}${grants.length === 0 ? html`<tr><td colspan="5">No client holds a grant.</td></tr>` : ""}</tbody></table>
${pager("/dashboard/settings", query, grantPage.page, grantPage.hasMore, "grants_page", "Grant pages")}
</section>

<section class="panel" aria-labelledby="members-h"><h2 id="members-h">Members and roles</h2>
<p class="muted">Shown read only: the dashboard does not invite members or change roles yet.</p>
<table><caption class="sr-only">Members</caption><thead><tr><th scope="col">Member</th><th scope="col">Roles</th><th scope="col">Since</th></tr></thead>
<tbody>${peoplePage.items.map((m) => html`<tr><td>${m.email}${m.name ? html`<div class="hint">${m.name}</div>` : ""}</td><td>${m.roles.map((r) => html`<span class="badge">${r}</span>`)}</td><td>${when(m.since)}</td></tr>`)}</tbody></table>
${pager("/dashboard/settings", query, peoplePage.page, peoplePage.hasMore, "members_page", "Member pages")}
</section>`;
  return shellPage(ctx, { title: "Settings", active: "settings", body: html`${errorSummary(e)}${body}`, status: forms.status });
}

const Query = t.Object({ keys_page: t.Optional(t.String({ maxLength: 10 })), grants_page: t.Optional(t.String({ maxLength: 10 })), members_page: t.Optional(t.String({ maxLength: 10 })) });
const FormBody = formBody({ text: 100_000, item: 1000, items: 10 });

export function settingsPages(deps: Deps) {
  const actor = (ctx: DashboardContext) => memberActor(ctx.principal.member.id);
  return new Elysia({ name: "dashboard-settings" })
    .get("/dashboard/settings", ({ request, query }) => withMember(deps, request, "org:manage", (ctx) => settingsPage(ctx, query)), { query: Query })
    .post(
      "/dashboard/settings/keys",
      ({ request, body }) =>
        withMember(deps, request, "org:manage", async (ctx) => {
          const values = formValues(body);
          const label = (values.label ?? "").trim();
          if (label.length > WIDGET_KEY_LIMITS.label) return settingsPage(ctx, {}, { values, errors: { label: `At most ${WIDGET_KEY_LIMITS.label} characters.` }, status: 400 });
          try {
            await createWidgetKey(deps, ctx.orgId, actor(ctx), label);
          } catch (error) {
            if (error instanceof AppError && error.status === 409) return settingsPage(ctx, {}, { values, errors: { label: error.message }, status: 409 });
            throw error;
          }
          return redirect(deps, "/dashboard/settings#keys-h", "Widget key created: its snippet is ready to copy.");
        }),
      { body: FormBody },
    )
    .post(
      "/dashboard/settings/keys/:id/revoke",
      ({ request, params }) =>
        withMember(deps, request, "org:manage", async (ctx) => {
          await revokeWidgetKey(deps, ctx.orgId, actor(ctx), params.id);
          return redirect(deps, "/dashboard/settings#keys-h", "Widget key revoked.");
        }),
      { params: IdParams },
    )
    .post(
      "/dashboard/settings/identity",
      ({ request, body }) =>
        withMember(deps, request, "org:manage", async (ctx) => {
          const on = formValues(body).enabled === "on";
          await setIdentityVerification(deps, ctx.orgId, actor(ctx), on);
          return redirect(deps, "/dashboard/settings#identity-h", on ? "Identity verification is on." : "Identity verification is off.");
        }),
      { body: FormBody },
    )
    .post("/dashboard/settings/identity/rotate", ({ request }) =>
      withMember(deps, request, "org:manage", async (ctx) => {
        // Answered directly, never through a redirect: the secret exists in this response only.
        const rotated = await rotateIdentitySecret(deps, ctx.orgId, actor(ctx));
        return settingsPage(ctx, {}, { secret: rotated.identity_secret });
      }),
    )
    .post("/dashboard/settings/identity/clear-previous", ({ request }) =>
      withMember(deps, request, "org:manage", async (ctx) => {
        await clearPreviousIdentitySecret(deps, ctx.orgId, actor(ctx));
        return redirect(deps, "/dashboard/settings#identity-h", "The previous secret no longer verifies.");
      }),
    )
    .post(
      "/dashboard/settings/origins",
      ({ request, body }) =>
        withMember(deps, request, "org:manage", async (ctx) => {
          const values = formValues(body);
          const list = (values.origins ?? "").split(/\r?\n/).map((s) => s.trim()).filter(Boolean);
          if (list.length > ORIGIN_LIMITS.origins) return settingsPage(ctx, {}, { values, errors: { origins: `At most ${ORIGIN_LIMITS.origins} origins (this has ${list.length}).` }, status: 400 });
          try {
            await setAllowedOrigins(deps, ctx.orgId, actor(ctx), list);
          } catch (error) {
            if (error instanceof AppError && error.status === 400) {
              const index = Number((error.details?.[0]?.path ?? "").split("/").pop());
              const line = Number.isInteger(index) ? ` Line ${index + 1}: ${list[index]}` : "";
              return settingsPage(ctx, {}, { values, errors: { origins: `${error.message}${line}` }, status: 400 });
            }
            throw error;
          }
          return redirect(deps, "/dashboard/settings#origins-h", list.length === 0 ? "Every site may use the widget keys." : "Allowed origins saved.");
        }),
      { body: FormBody },
    )
    .post(
      "/dashboard/settings/llm",
      ({ request, body }) =>
        withMember(deps, request, "org:manage", async (ctx) => {
          const values = { ...formValues(body), llm_api_key: "" };
          const raw = formValues(body);
          const provider = raw.llm_provider ?? "";
          if (provider === "") {
            await clearOrgLlm(deps, ctx.orgId, actor(ctx));
            return redirect(deps, "/dashboard/settings#llm-h", "Agents without their own model use the operator's default.");
          }
          if (!["builtin", "openai", "anthropic"].includes(provider)) return settingsPage(ctx, {}, { values, errors: { llm_provider: "Choose a provider." }, status: 400 });
          const model = (raw.llm_model ?? "").trim();
          const base = (raw.llm_base_url ?? "").trim();
          const key = raw.llm_api_key ?? "";
          const errors: FieldErrors = {};
          if (model.length > AGENT_LIMITS.model) errors.llm_model = `At most ${AGENT_LIMITS.model} characters.`;
          if (base.length > AGENT_LIMITS.baseUrl) errors.llm_base_url = `At most ${AGENT_LIMITS.baseUrl} characters.`;
          if (key.length > AGENT_LIMITS.apiKey) errors.llm_api_key = `At most ${AGENT_LIMITS.apiKey} characters.`;
          if (Object.keys(errors).length > 0) return settingsPage(ctx, {}, { values, errors, status: 400 });
          try {
            await setOrgLlm(deps, ctx.orgId, actor(ctx), { provider: provider as ProviderKind, model: model || null, base_url: base || null, ...(key ? { api_key: key } : {}) });
          } catch (error) {
            if (error instanceof AppError && error.status === 400) {
              const out: FieldErrors = {};
              for (const d of error.details ?? []) out[`llm_${d.path.split("/").filter(Boolean)[0] ?? "provider"}`] ??= d.message.charAt(0).toUpperCase() + d.message.slice(1) + ".";
              if (Object.keys(out).length === 0) out.llm_provider = error.message;
              return settingsPage(ctx, {}, { values, errors: out, status: 400 });
            }
            throw error;
          }
          return redirect(deps, "/dashboard/settings#llm-h", "Model saved.");
        }),
      { body: FormBody },
    )
    .post(
      "/dashboard/settings/grants/:id/revoke",
      ({ request, params }) =>
        withMember(deps, request, "org:manage", async (ctx) => {
          await revokeGrantOfOrg(deps, ctx.orgId, ctx.principal.member.id, true, params.id);
          return redirect(deps, "/dashboard/settings#grants-h", "The client's access is revoked.");
        }),
      { params: IdParams },
    );
}

