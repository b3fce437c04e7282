// The connectors list: the servers with their status and tools, what turns connectors on when the
// org's flag is off, and the form connecting a server.
import type { connectorView } from "../../connectors/service.ts";
import { type Html, html } from "../../html/html.ts";
import { actionButton, errorSummary, field, type FieldErrors, type FormValues, submit } from "../kit/fields.ts";
import { listTable, pager, when } from "../kit/table.ts";
import { connectorStatusBadge } from "./connector-badges.ts";
import { CredentialFields } from "./connector-credentials.ts";

type Connector = ReturnType<typeof connectorView>;

export interface ConnectorListProps {
  enabled: boolean;
  /** This page's servers; `none`: the org has none at all. */
  servers: readonly Connector[];
  none: boolean;
  query: Record<string, string | undefined>;
  page: number;
  hasMore: boolean;
  orgId: string;
  /** integrations:manage (connect) and org:manage (turn the flag on). */
  manage: boolean;
  manageOrg: boolean;
  values: FormValues;
  errors: FieldErrors;
  methods: readonly string[];
  nameMax: number;
}

const OPERATOR_BINARY = html`<code>npm run --silent cli --</code> for the binary; without <code>--via-server</code>`;
const OPERATOR_CLI = html`The operator can also turn them on from the command line (<code>svc-agents</code> in place of`;
const OPERATOR = html`${OPERATOR_CLI} ${OPERATOR_BINARY} when the server is stopped or on PostgreSQL):`;

/**
 * The flag is off: what turns it on. A member who may change the org's settings (org:manage) gets
 * a button (recorded in the activity log as `feature_flag.changed`, as the CLI's change is); every
 * member sees the operator's command with this org's id, so they can ask for exactly that.
 */
function FlagOff({ orgId, manageOrg }: { orgId: string; manageOrg: boolean }): Html {
  const turnOn = actionButton("/dashboard/connectors/enable", "Turn on connectors", { busy: "Turning on…" });
  const command = `npm run --silent cli -- --via-server org flag --org ${orgId} --name mcp_external_servers --on`;
  return html`<section class="panel" aria-labelledby="flag-h"><h2 id="flag-h">Connectors are off for this organisation</h2>
<p class="error" role="status">Connecting MCP servers is not enabled for this organisation (feature flag <code>mcp_external_servers</code>).</p>
${manageOrg ? "" : html`<p>An organisation admin (<code>org:manage</code>) can turn them on here.</p>`}
<p>${OPERATOR}</p>
<pre><code>${command}</code></pre>
${manageOrg ? html`<div class="actions">${turnOn}</div>` : ""}</section>`;
}

function row(s: Connector): Html {
  const name = html`<a href="/dashboard/connectors/${s.id}">${s.name}</a><div class="hint"><code>${s.slug}</code> · ${s.url}</div>`;
  const error = s.last_error ? html`<div class="hint">${s.last_error.slice(0, 200)}</div>` : "";
  const dropped = s.dropped_tools.length ? html` <span class="badge warn">${s.dropped_tools.length} dropped</span>` : "";
  const status = html`${connectorStatusBadge(s.status)}${error}`;
  return html`<tr><td>${name}</td><td>${status}</td><td>${s.tool_count}${dropped}</td><td>${when(s.last_discovered_at)}</td></tr>`;
}

const SLUG_HINT = "Lower-case letters, digits and _; starts with a letter. Derived from the name as you type; left empty, it is derived when you connect.";

function ConnectForm({ values: v, errors: e, methods, nameMax }: ConnectorListProps): Html {
  return html`<section class="panel" aria-labelledby="connect-h"><h2 id="connect-h">Connect a server</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/connectors" novalidate>
<div class="grid2">
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: nameMax })}
${field({
  name: "slug",
  label: "Slug",
  value: v.slug,
  error: e.slug,
  maxLength: 32,
  hint: SLUG_HINT,
  attrs: { "data-slug-from": "f-name", pattern: "[a-z][a-z0-9_]{0,31}" },
})}
</div>
${field({ name: "url", label: "Server URL", type: "url", value: v.url, error: e.url, required: true, hint: "The MCP endpoint, https." })}
${CredentialFields({
  values: v,
  errors: e,
  methods,
  hint: "Fill in the fields of the method you choose; they are stored encrypted and never shown again.",
})}
<div class="actions">${submit("Connect", { busy: "Connecting…" })}</div>
</form></section>`;
}

const SWITCH = html`Switch each tool on per agent in the agent's actions.`;
const INTRO = html`MCP servers whose tools your agents may call, under <code>mcp.&lt;slug&gt;.&lt;tool&gt;</code>. ${SWITCH}`;

export function ConnectorList(p: ConnectorListProps): Html {
  return html`<h1>Connectors</h1>
<p class="muted">${INTRO}</p>
${p.enabled ? "" : FlagOff(p)}
${listTable({
  caption: "Connectors",
  columns: ["Name", "Status", "Tools", "Last discovery"],
  rows: p.servers,
  row,
  empty: p.none ? "No servers connected." : null,
})}
${pager("/dashboard/connectors", p.query, p.page, p.hasMore)}
${p.manage && p.enabled ? ConnectForm(p) : ""}`;
}
