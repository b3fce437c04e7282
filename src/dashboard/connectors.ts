// Dashboard: connectors (docs/interface.md 2.1 and 4.1). Connect an MCP server (the slug derived
// from the name as the user types; the handshake and discovery run before the answer, so the
// button shows "Connecting…"), its status, discovered and dropped tools, refresh (optionally with
// new credentials), disconnect. Through src/connectors/service.ts, as /api/integrations/mcp/servers.
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { connect, connectorView, disconnect, listConnectors, refreshConnector } from "../connectors/service.ts";
import { AUTH_METHODS, CONNECTOR_LIMITS, type ConnectorAuthMethod, CREDENTIAL_FIELDS } from "../connectors/rules.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isSlug } from "../kit/slugs.ts";
import { setFeatureFlag } from "../orgs/service.ts";
import { type Html, html } from "../html/html.ts";
import { slugOf } from "./client/slug.ts";
import {
  actionButton,
  badge,
  checkbox,
  type DashboardContext,
  detailErrors,
  listTable,
  type Refused,
  submitForm,
  errorSummary,
  field,
  type FieldErrors,
  formValues,
  type FormValues,
  pageNumber,
  pageOf,
  pager,
  redirect,
  select,
  shellPage,
  submit,
  when,
  withMember,
  formBody,
  IdParams,
} from "./kit/index.ts";

type View = ReturnType<typeof connectorView>;

/** The server's annotations in words; a destructive one is confirmed like ours before an agent may use it. */
function hintBadges(tool: { destructive: boolean; read_only?: boolean; idempotent?: boolean; open_world?: boolean; output_schema?: unknown }) {
  return html`${tool.read_only ? html`<span class="badge">read-only</span>` : ""}${tool.destructive ? html`<span class="badge danger">destructive</span>` : ""}${
    tool.idempotent ? html` <span class="badge">idempotent</span>` : ""
  }${tool.open_world === false ? html` <span class="badge">closed world</span>` : ""}${tool.output_schema ? html` <span class="badge accent">structured output</span>` : ""}`;
}

/** The slug the dashboard proposes for a name (docs/interface.md 2.1): what /assets/dashboard.js does as one types. */
export const slugFromName = slugOf;

function statusBadge(status: string): Html {
  return badge(status, status === "connected" ? "ok" : status === "error" ? "danger" : "warn");
}

const CREDENTIAL_LABELS: Record<string, string> = {
  token: "Bearer token",
  access_token: "Access token",
  refresh_token: "Refresh token",
  client_id: "Client id",
  client_secret: "Client secret",
};

function credentialFields(v: FormValues, e: FieldErrors, hint: string): Html {
  return html`<fieldset><legend>Credentials</legend><p class="hint">${hint}</p>
${select({ name: "auth_method", label: "Authentication", value: v.auth_method ?? "none", error: e.auth_method, options: AUTH_METHODS.map((m) => ({ value: m, label: m === "none" ? "None" : m === "bearer" ? "Bearer token" : "OAuth 2 tokens" })) })}
${Object.keys(CREDENTIAL_LABELS).map((name) => html`<div data-auth="${name === "token" ? "bearer" : "oauth2"}">${field({ name: `cred_${name}`, label: `${CREDENTIAL_LABELS[name]}${name === "token" ? " (bearer)" : " (OAuth 2)"}`, type: "password", value: "", error: e[`cred_${name}`] })}</div>`)}
</fieldset>`;
}

function credentialsFrom(v: FormValues): { method: ConnectorAuthMethod; credentials: Record<string, string> } {
  const method = (AUTH_METHODS as string[]).includes(v.auth_method ?? "") ? (v.auth_method as ConnectorAuthMethod) : "none";
  const credentials: Record<string, string> = {};
  for (const name of CREDENTIAL_FIELDS[method]) if (v[`cred_${name}`]) credentials[name] = v[`cred_${name}`]!;
  return { method, credentials };
}

function errorsFromService(error: AppError, fallback: string): FieldErrors {
  return detailErrors(error, ([first, second]) => (first === "credentials" ? `cred_${second}` : (first ?? fallback)), fallback);
}

// ---- pages --------------------------------------------------------------------------------------

/**
 * The flag is off: what turns it on. A member who may change the org's settings (org:manage) gets
 * a button (recorded in the activity log as `feature_flag.changed`, as the CLI's change is); every
 * member sees the operator's command with this org's id, so they can ask for exactly that.
 */
function flagOff(ctx: DashboardContext): Html {
  const command = `npm run --silent cli -- --via-server org flag --org ${ctx.orgId} --name mcp_external_servers --on`;
  return html`<section class="panel" aria-labelledby="flag-h"><h2 id="flag-h">Connectors are off for this organisation</h2>
<p class="error" role="status">Connecting MCP servers is not enabled for this organisation (feature flag <code>mcp_external_servers</code>).</p>
${ctx.can("org:manage") ? "" : html`<p>An organisation admin (<code>org:manage</code>) can turn them on here.</p>`}
<p>The operator can also turn them on from the command line (<code>svc-agents</code> in place of <code>npm run --silent cli --</code> for the binary; without <code>--via-server</code> when the server is stopped or on PostgreSQL):</p>
<pre><code>${command}</code></pre>
${ctx.can("org:manage") ? html`<div class="actions">${actionButton("/dashboard/connectors/enable", "Turn on connectors", { busy: "Turning on…" })}</div>` : ""}</section>`;
}

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>, form?: Refused): Promise<Response> {
  const { enabled, servers } = await listConnectors(ctx.deps, ctx.orgId);
  const page = pageOf(servers, pageNumber(query.page));
  const manage = ctx.can("integrations:manage");
  const v = form?.values ?? {};
  const e = form?.errors ?? {};
  const body = html`<h1>Connectors</h1>
<p class="muted">MCP servers whose tools your agents may call, under <code>mcp.&lt;slug&gt;.&lt;tool&gt;</code>. Switch each tool on per agent in the agent's actions.</p>
${enabled ? "" : flagOff(ctx)}
${listTable({
  caption: "Connectors",
  columns: ["Name", "Status", "Tools", "Last discovery"],
  rows: page.items,
  row: (s) =>
    html`<tr><td><a href="/dashboard/connectors/${s.id}">${s.name}</a><div class="hint"><code>${s.slug}</code> · ${s.url}</div></td><td>${statusBadge(s.status)}${s.last_error ? html`<div class="hint">${s.last_error.slice(0, 200)}</div>` : ""}</td><td>${s.tool_count}${s.dropped_tools.length ? html` <span class="badge warn">${s.dropped_tools.length} dropped</span>` : ""}</td><td>${when(s.last_discovered_at)}</td></tr>`,
  empty: servers.length === 0 ? "No servers connected." : null,
})}
${pager("/dashboard/connectors", query, page.page, page.hasMore)}
${
  manage && enabled
    ? html`<section class="panel" aria-labelledby="connect-h"><h2 id="connect-h">Connect a server</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/connectors" novalidate>
<div class="grid2">
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: CONNECTOR_LIMITS.name })}
${field({ name: "slug", label: "Slug", value: v.slug, error: e.slug, maxLength: 32, hint: "Lower-case letters, digits and _; starts with a letter. Derived from the name as you type; left empty, it is derived when you connect.", attrs: { "data-slug-from": "f-name", pattern: "[a-z][a-z0-9_]{0,31}" } })}
</div>
${field({ name: "url", label: "Server URL", type: "url", value: v.url, error: e.url, required: true, hint: "The MCP endpoint, https." })}
${credentialFields(v, e, "Fill in the fields of the method you choose; they are stored encrypted and never shown again.")}
<div class="actions">${submit("Connect", { busy: "Connecting…" })}</div>
</form></section>`
    : ""
}`;
  return shellPage(ctx, { title: "Connectors", active: "connectors", body, status: form?.status });
}

async function serverOf(ctx: DashboardContext, id: string): Promise<View> {
  const server = (await listConnectors(ctx.deps, ctx.orgId)).servers.find((s) => s.id === id);
  if (!server) throw AppError.notFound("No such connector.");
  return server;
}

function detailPage(ctx: DashboardContext, s: View, query: Record<string, string | undefined>, form?: Refused): Response {
  const manage = ctx.can("integrations:manage");
  const tools = pageOf(s.discovered_tools, pageNumber(query.page), 50);
  const v = form?.values ?? { name: s.name, auth_method: s.auth_method };
  const e = form?.errors ?? {};
  const body = html`<p><a href="/dashboard/connectors">← Connectors</a></p>
<h1>${s.name} ${statusBadge(s.status)}</h1>
<p class="muted"><code>${s.slug}</code> · ${s.url} · ${s.auth_method === "none" ? "no authentication" : s.auth_method} · last discovery ${when(s.last_discovered_at)}${
    typeof s.server_info.protocolVersion === "string" ? html` · <span data-revision>MCP ${s.server_info.protocolVersion}</span>` : ""
  }</p>
${s.last_error ? html`<p class="error" role="status">${s.last_error}</p>` : ""}
<h2>Discovered tools (${s.tool_count})</h2>
${listTable({
  caption: "Discovered tools",
  columns: ["Action", "Hints from the server", "Description"],
  rows: tools.items,
  row: (tool) =>
    html`<tr><td><code>${tool.action_id}</code>${tool.title ? html`<div class="hint">${tool.title}</div>` : ""}</td><td>${hintBadges(tool)}</td><td>${tool.description.slice(0, 300)}</td></tr>`,
  empty: s.tool_count === 0 ? "None." : null,
})}
${pager(`/dashboard/connectors/${s.id}`, query, tools.page, tools.hasMore)}
${s.dropped_tools.length ? html`<h2>Dropped tools</h2><p class="muted">Listed by the server but not offered to agents.</p><ul>${s.dropped_tools.slice(0, 100).map((d) => html`<li><code>${d.name}</code>: ${d.reason}</li>`)}</ul>` : ""}
${
  manage
    ? html`<section class="panel" aria-labelledby="refresh-h"><h2 id="refresh-h">Refresh</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/connectors/${s.id}/refresh" novalidate>
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: CONNECTOR_LIMITS.name })}
${checkbox({ name: "replace_credentials", id: "f-replace", label: "Replace the credentials", checked: v.replace_credentials === "on" })}
${credentialFields(v, e, "Used only when “Replace the credentials” is ticked; otherwise the stored ones are kept.")}
<div class="actions">${submit("Refresh tools", { busy: "Refreshing…" })}</div>
</form></section>
<div class="actions">${actionButton(`/dashboard/connectors/${s.id}/disconnect`, "Disconnect", { kind: "danger", busy: "Disconnecting…", confirm: "Disconnect this server? Its tools leave every agent and its credentials are erased." })}</div>`
    : ""
}`;
  return shellPage(ctx, { title: s.name, active: "connectors", body, status: form?.status });
}

// ---- posts --------------------------------------------------------------------------------------

/** Connect: the handshake and discovery run before the answer; a failed discovery still saves. */
function connectServer(ctx: DashboardContext, values: FormValues): Promise<Response> {
  const name = (values.name ?? "").trim();
  // The slug shown again is the one derived, when it was left empty.
  const kept = { ...values, slug: (values.slug ?? "").trim() || slugFromName(name) };
  return submitForm({
    values: kept,
    validate: (v) => {
      const slug = v.slug!;
      const url = (v.url ?? "").trim();
      const errors: FieldErrors = {};
      if (!name) errors.name = "Give the server a name.";
      else if (name.length > CONNECTOR_LIMITS.name) errors.name = `At most ${CONNECTOR_LIMITS.name} characters.`;
      if (name && !isSlug(slug)) errors.slug = "Lower-case letters, digits and _, starting with a letter, at most 32.";
      if (!url) errors.url = "Give the server's MCP URL.";
      const { method, credentials } = credentialsFrom(v);
      return { input: { name, slug, url, auth_method: method, credentials }, errors };
    },
    call: (input) => connect(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), input),
    done: (result) =>
      redirect(
        ctx.deps,
        `/dashboard/connectors/${result.id}`,
        result.status === "connected"
          ? `Connected: ${result.tool_count} tool${result.tool_count === 1 ? "" : "s"} discovered.`
          : { kind: "error", text: `Saved, but discovery failed: ${result.error ?? result.status}` },
      ),
    render: (refused) => listPage(ctx, {}, refused),
    refused: (error) => (error.status === 400 || error.status === 409 ? errorsFromService(error, "url") : null),
  });
}

/** Refresh: the name, and the credentials only when "Replace the credentials" is ticked. */
function refresh(ctx: DashboardContext, server: View, values: FormValues): Promise<Response> {
  return submitForm({
    values,
    validate: (v) => {
      const name = (v.name ?? "").trim();
      const { method, credentials } = credentialsFrom(v);
      return {
        input: { name, ...(v.replace_credentials === "on" ? { auth_method: method, credentials } : {}) },
        errors: (name ? {} : { name: "Give the server a name." }) as FieldErrors,
      };
    },
    call: (input) => refreshConnector(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), server.id, input),
    done: (view) =>
      redirect(
        ctx.deps,
        `/dashboard/connectors/${server.id}`,
        view.status === "connected"
          ? `Refreshed: ${view.tool_count} tool${view.tool_count === 1 ? "" : "s"}.`
          : { kind: "error", text: `Refresh failed: ${view.last_error ?? view.status}` },
      ),
    render: (refused) => detailPage(ctx, server, {}, refused),
    refused: (error) => (error.status === 400 ? errorsFromService(error, "name") : null),
  });
}

// ---- routes -------------------------------------------------------------------------------------

const Query = t.Object({ page: t.Optional(t.String({ maxLength: 10 })) });
const FormBody = formBody({ text: 20_000, item: 1000, items: 10 });

export function connectorPages(deps: Deps) {
  return new Elysia({ name: "dashboard-connectors" })
    .get("/dashboard/connectors", ({ request, query }) => withMember(deps, request, "integrations:view", (ctx) => listPage(ctx, query)), { query: Query })
    .post("/dashboard/connectors/enable", ({ request }) =>
      withMember(deps, request, "org:manage", async (ctx) => {
        await setFeatureFlag(deps, ctx.orgId, memberActor(ctx.principal.member.id), "mcp_external_servers", true);
        return redirect(deps, "/dashboard/connectors", "Connectors are on: connect a server below.");
      }),
    )
    .post("/dashboard/connectors", ({ request, body }) => withMember(deps, request, "integrations:manage", (ctx) => connectServer(ctx, formValues(body))), {
      body: FormBody,
    })
    .get(
      "/dashboard/connectors/:id",
      ({ request, params, query }) => withMember(deps, request, "integrations:view", async (ctx) => detailPage(ctx, await serverOf(ctx, params.id), query)),
      { params: IdParams, query: Query },
    )
    .post(
      "/dashboard/connectors/:id/refresh",
      ({ request, params, body }) =>
        withMember(deps, request, "integrations:manage", async (ctx) => refresh(ctx, await serverOf(ctx, params.id), formValues(body))),
      { params: IdParams, body: FormBody },
    )
    .post(
      "/dashboard/connectors/:id/disconnect",
      ({ request, params }) =>
        withMember(deps, request, "integrations:manage", async (ctx) => {
          const server = await serverOf(ctx, params.id);
          await disconnect(deps, ctx.orgId, memberActor(ctx.principal.member.id), server.id);
          return redirect(deps, "/dashboard/connectors", `“${server.name}” disconnected.`);
        }),
      { params: IdParams },
    );
}
