// Dashboard: settings (issue #14), role org:manage. Widget keys (create, revoke) with the install
// snippet ready to copy, identity verification (switch, rotate with the new secret shown once,
// clear the previous secret), allowed origins, OAuth grants held by MCP clients (list, revoke)
// under org:manage; members and their roles under members:manage (invite with the link shown once,
// change roles, remove, pending invitations with revoke). Each section shows only to a member
// holding its role, and the page opens for either. Through src/orgs/widget-access.ts,
// src/sdk/settings.ts, src/oauth/grants.ts, src/orgs/members.ts and src/orgs/invitations.ts, as
// /api/widget/*, /api/oauth/grants and /api/members do.
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import type { ProviderKind } from "../agents/llm/types.ts";
import { AGENT_LIMITS, clearOrgLlm, orgLlmView, setOrgLlm } from "../agents/service.ts";
import { ROLES } from "../auth/roles.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { listGrants, revokeGrantOfOrg } from "../oauth/grants.ts";
import { INVITATION_LIMITS, inviteMember, listInvitations, revokeInvitation } from "../orgs/invitations.ts";
import { ADMIN_ROLES, changeMemberRoles, listMembers, removeMember, ROLE_DESCRIPTIONS } from "../orgs/members.ts";
import { clearPreviousIdentitySecret, createWidgetKey, identityView, listWidgetKeys, revokeWidgetKey, rotateIdentitySecret, setIdentityVerification, WIDGET_KEY_LIMITS } from "../orgs/widget-access.ts";
import { allowedOrigins, ORIGIN_LIMITS, setAllowedOrigins } from "../sdk/settings.ts";
import { type Html, html } from "../html/html.ts";
import { installSnippet } from "../widget/demo.ts";
import { actionButton, checkbox, type DashboardContext, errorSummary, field, type FieldErrors, formList, formValues, type FormValues, PAGE_SIZE, pageNumber, pageOf, pager, redirect, select, shellPage, submit, textarea, when, withMember, formBody, IdParams } from "./shell.ts";

interface SettingsForms {
  values?: FormValues;
  errors?: FieldErrors;
  /** The identity secret just rotated: shown on this answer only. */
  secret?: string;
  /** The invitation just made: its link is shown on this answer only. */
  invite?: { email: string; url: string };
  /** Invite-form checkboxes as submitted (a re-rendered form keeps them). */
  inviteRoles?: string[];
  status?: number;
}

/** The sections under org:manage: widget keys, identity verification, origins, model, grants. */
async function orgSettings(ctx: DashboardContext, query: Record<string, string | undefined>, forms: SettingsForms): Promise<Html> {
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
  const llm = await orgLlmView(deps, orgId);

  return html`<section class="panel" aria-labelledby="keys-h"><h2 id="keys-h">Widget keys and install snippet</h2>
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
</section>`;
}

async function settingsPage(ctx: DashboardContext, query: Record<string, string | undefined>, forms: SettingsForms = {}): Promise<Response> {
  const orgSections = ctx.can("org:manage") ? await orgSettings(ctx, query, forms) : html``;
  const body = html`<h1>Settings</h1>
<p><a href="/dashboard/settings/email">Email: support address and your notifications</a></p>
${orgSections}
${await membersSection(ctx, query, forms)}`;
  return shellPage(ctx, { title: "Settings", active: "settings", body: html`${errorSummary(forms.errors ?? {})}${body}`, status: forms.status });
}

/** The error key of a member's role form (next to its checkboxes; the summary links to it). */
const rolesKey = (memberId: string) => `roles-${memberId}`;

function roleChecks(name: string, idPrefix: string, checked: readonly string[], hints = true): Html {
  return html`<div class="grid2">${ROLES.map((role, i) => checkbox({ name, value: role, id: `${idPrefix}-${i}`, label: role, checked: checked.includes(role), hint: hints ? ROLE_DESCRIPTIONS[role] : undefined }))}</div>`;
}

/**
 * Members and roles. With members:manage: the invite form (the new link shown once, on the answer
 * to the invite), each member's roles in a disclosure form, remove, pending invitations with
 * revoke. With org:manage alone: the members, read only. Both lists paginate.
 */
async function membersSection(ctx: DashboardContext, query: Record<string, string | undefined>, forms: SettingsForms): Promise<Html> {
  const { deps, orgId } = ctx;
  const manage = ctx.can("members:manage");
  const v = forms.values ?? {};
  const e = forms.errors ?? {};
  const people = await listMembers(deps, orgId, { page: pageNumber(query.members_page), perPage: PAGE_SIZE });
  const peopleMore = people.page * people.per_page < people.total;
  const me = ctx.principal.member.id;
  const table = html`<table><caption class="sr-only">Members</caption><thead><tr><th scope="col">Member</th><th scope="col">Roles</th><th scope="col">Since</th>${manage ? html`<th scope="col"><span class="sr-only">Actions</span></th>` : ""}</tr></thead>
<tbody>${people.members.map((m) => {
    const error = e[rolesKey(m.id)];
    const row = html`<tr><td>${m.email}${m.id === me ? html` <span class="badge accent">you</span>` : ""}${m.name ? html`<div class="hint">${m.name}</div>` : ""}</td><td>${m.roles.map((r) => html`<span class="badge">${r}</span>`)}</td><td>${when(m.joined_at)}</td>${manage ? html`<td>${actionButton(`/dashboard/settings/members/${m.id}/remove`, m.id === me ? "Leave" : "Remove", { kind: "danger", confirm: m.id === me ? `Leave ${ctx.orgName}? You lose access to it at once.` : `Remove ${m.email} from ${ctx.orgName}? Their sessions and connected AI clients lose access to it at once.` })}</td>` : ""}</tr>`;
    if (!manage) return row;
    // The role form in a row of its own, the table's full width, folded until opened (open when it failed).
    return html`${row}<tr><td colspan="4"><details${error ? html` open` : ""}><summary>Edit roles of ${m.email}</summary>
<form method="post" action="/dashboard/settings/members/${m.id}/roles" novalidate>
<fieldset id="f-${rolesKey(m.id)}"${error ? html` aria-describedby="f-${rolesKey(m.id)}-error"` : ""}><legend>Roles of ${m.email}</legend>
${roleChecks("roles", `r-${m.id}`, m.roles, false)}
${error ? html`<p class="field-error" id="f-${rolesKey(m.id)}-error">${error}</p>` : ""}
</fieldset>
<div class="actions">${submit("Save roles", { busy: "Saving…" })}</div>
</form></details></td></tr>`;
  })}</tbody></table>
${pager("/dashboard/settings", query, people.page, peopleMore, "members_page", "Member pages")}`;
  if (!manage)
    return html`<section class="panel" aria-labelledby="members-h"><h2 id="members-h">Members and roles</h2>
<p class="muted">Inviting members and changing roles needs the <code>members:manage</code> role.</p>
${table}
</section>`;

  const invites = await listInvitations(deps, orgId, { page: pageNumber(query.invites_page), perPage: PAGE_SIZE });
  const invitesMore = invites.page * invites.per_page < invites.total;
  const checkedInvite = forms.inviteRoles ?? [];
  return html`<section class="panel" aria-labelledby="members-h"><h2 id="members-h">Members and roles</h2>
<p class="muted">An organisation keeps at least one member holding both ${ADMIN_ROLES.join(" and ")}. You can grant only roles you hold yourself.</p>
${
  forms.invite
    ? html`<div class="flash ok" role="status"><p><strong>Invitation for ${forms.invite.email}: the link is shown this once.</strong> Send it to them yourself; it works once, for ${INVITATION_LIMITS.ttlDays} days.</p><label for="invite-link">Invitation link</label><input id="invite-link" type="text" readonly value="${forms.invite.url}"><div class="actions"><button type="button" class="secondary" data-copy="invite-link" hidden>Copy link</button></div></div>`
    : ""
}
${table}
<h3 id="invite-h">Invite a member</h3>
<form method="post" action="/dashboard/settings/members/invite" novalidate aria-labelledby="invite-h">
${field({ name: "invite_email", label: "Email", type: "email", value: v.invite_email, error: e.invite_email, maxLength: INVITATION_LIMITS.email, hint: "They get a link to set a password, or to sign in if they have an account." })}
<fieldset id="f-invite_roles"${e.invite_roles ? html` aria-describedby="f-invite_roles-error"` : ""}><legend>Roles</legend>
${roleChecks("invite_roles", "inv", checkedInvite)}
${e.invite_roles ? html`<p class="field-error" id="f-invite_roles-error">${e.invite_roles}</p>` : ""}
</fieldset>
<div class="actions">${submit("Invite", { busy: "Inviting…" })}</div>
</form>
<h3 id="invitations-h">Pending invitations</h3>
<table><caption class="sr-only">Pending invitations</caption><thead><tr><th scope="col">Email</th><th scope="col">Roles</th><th scope="col">Invited by</th><th scope="col">Expires</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${invites.invitations.map((i) => html`<tr><td>${i.email}</td><td>${i.roles.map((r) => html`<span class="badge">${r}</span>`)}</td><td>${i.invited_by?.email ?? "—"}</td><td>${i.status === "expired" ? html`<span class="badge warn">expired</span> ` : ""}${when(i.expires_at)}</td><td>${actionButton(`/dashboard/settings/invitations/${i.id}/revoke`, "Revoke", { kind: "danger", confirm: `Revoke the invitation for ${i.email}? Its link stops working.` })}</td></tr>`)}${invites.total === 0 ? html`<tr><td colspan="5">No pending invitations.</td></tr>` : ""}</tbody></table>
${pager("/dashboard/settings", query, invites.page, invitesMore, "invites_page", "Invitation pages")}
</section>`;
}

const Query = t.Object({
  keys_page: t.Optional(t.String({ maxLength: 10 })),
  grants_page: t.Optional(t.String({ maxLength: 10 })),
  members_page: t.Optional(t.String({ maxLength: 10 })),
  invites_page: t.Optional(t.String({ maxLength: 10 })),
});
const FormBody = formBody({ text: 100_000, item: 1000, items: 10 });
/** The members forms: an email, and role checkboxes (at most every role once). */
const MemberForm = formBody({ text: 1000, item: 64, items: ROLES.length });

export function settingsPages(deps: Deps) {
  const actor = (ctx: DashboardContext) => memberActor(ctx.principal.member.id);
  return new Elysia({ name: "dashboard-settings" })
    .get(
      "/dashboard/settings",
      ({ request, query }) =>
        withMember(deps, request, null, (ctx) => {
          // Either role opens the page; each section shows only to the role it needs.
          if (!ctx.can("org:manage") && !ctx.can("members:manage")) throw AppError.forbidden(`Settings need the org:manage or members:manage role. Ask an admin of ${ctx.orgName} to grant one.`);
          return settingsPage(ctx, query);
        }),
      { query: Query },
    )
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
    )
    // ---- members (members:manage) ----
    .post(
      "/dashboard/settings/members/invite",
      ({ request, body }) =>
        withMember(deps, request, "members:manage", async (ctx) => {
          const values = formValues(body);
          const email = (values.invite_email ?? "").trim();
          const roles = formList(body, "invite_roles");
          const again = (errors: FieldErrors, status: number) => settingsPage(ctx, {}, { values, inviteRoles: roles, errors, status });
          const errors: FieldErrors = {};
          if (email === "") errors.invite_email = "Enter the email address to invite.";
          if (roles.length === 0) errors.invite_roles = "Choose at least one role.";
          if (Object.keys(errors).length > 0) return again(errors, 400);
          try {
            const created = await inviteMember(deps, ctx.orgId, actor(ctx), { email, roles });
            // Answered directly, never through a redirect: the link exists in this response only.
            return settingsPage(ctx, {}, { invite: { email: created.invitation.email, url: created.invite_url }, status: 201 });
          } catch (error) {
            if (!(error instanceof AppError) || error.status >= 500 || error.status === 401) throw error;
            if (error.status === 400) {
              for (const d of error.details ?? []) {
                const key = d.path.startsWith("/roles") ? "invite_roles" : "invite_email";
                errors[key] ??= d.message.charAt(0).toUpperCase() + d.message.slice(1) + ".";
              }
              if (Object.keys(errors).length === 0) errors.invite_email = error.message;
            } else if (error.code === "role_not_held") errors.invite_roles = error.message;
            else errors.invite_email = error.message;
            return again(errors, error.status);
          }
        }),
      { body: MemberForm },
    )
    .post(
      "/dashboard/settings/members/:id/roles",
      ({ request, params, body }) =>
        withMember(deps, request, "members:manage", async (ctx) => {
          const roles = formList(body, "roles");
          const key = rolesKey(params.id);
          try {
            const member = await changeMemberRoles(deps, ctx.orgId, actor(ctx), params.id, roles);
            // Someone who just gave up members:manage (and org:manage) can no longer open settings.
            const stillHere = params.id !== ctx.principal.member.id || member.roles.includes("members:manage") || member.roles.includes("org:manage");
            return redirect(deps, stillHere ? "/dashboard/settings#members-h" : "/dashboard", `Roles of ${member.email} saved.`);
          } catch (error) {
            if (!(error instanceof AppError) || ![400, 403, 409].includes(error.status) || error.code === "cross_site_request") throw error;
            const message = error.status === 400 ? "Choose at least one role." : error.message;
            return settingsPage(ctx, {}, { errors: { [key]: message }, status: error.status });
          }
        }),
      { params: IdParams, body: MemberForm },
    )
    .post(
      "/dashboard/settings/members/:id/remove",
      ({ request, params }) =>
        withMember(deps, request, "members:manage", async (ctx) => {
          const self = params.id === ctx.principal.member.id;
          try {
            await removeMember(deps, ctx.orgId, actor(ctx), params.id);
          } catch (error) {
            if (error instanceof AppError && error.status === 409) return redirect(deps, "/dashboard/settings#members-h", { kind: "error", text: error.message });
            throw error;
          }
          return self ? redirect(deps, "/dashboard", `You left ${ctx.orgName}.`) : redirect(deps, "/dashboard/settings#members-h", "Member removed; their access to this organisation has ended.");
        }),
      { params: IdParams, body: MemberForm },
    )
    .post(
      "/dashboard/settings/invitations/:id/revoke",
      ({ request, params }) =>
        withMember(deps, request, "members:manage", async (ctx) => {
          await revokeInvitation(deps, ctx.orgId, actor(ctx), params.id);
          return redirect(deps, "/dashboard/settings#invitations-h", "Invitation revoked; its link no longer works.");
        }),
      { params: IdParams, body: MemberForm },
    );
}
