// One connector: its status and server, the tools it discovered and dropped, the refresh form
// (optionally with new credentials) and the disconnect button.
import type { connectorView } from "../../connectors/service.ts";
import { type Html, html } from "../../html/html.ts";
import { actionButton, checkbox, errorSummary, field, type FieldErrors, type FormValues, submit } from "../kit/fields.ts";
import { listTable, pager, when } from "../kit/table.ts";
import { connectorStatusBadge, hintBadges } from "./connector-badges.ts";
import { CredentialFields } from "./connector-credentials.ts";

type Connector = ReturnType<typeof connectorView>;
type Tool = Connector["discovered_tools"][number];

export interface ConnectorDetailProps {
  server: Connector;
  /** This page of its discovered tools. */
  tools: readonly Tool[];
  query: Record<string, string | undefined>;
  page: number;
  hasMore: boolean;
  manage: boolean;
  values: FormValues;
  errors: FieldErrors;
  methods: readonly string[];
  nameMax: number;
}

function toolRow(tool: Tool): Html {
  const title = tool.title ? html`<div class="hint">${tool.title}</div>` : "";
  return html`<tr><td><code>${tool.action_id}</code>${title}</td><td>${hintBadges(tool)}</td><td>${tool.description.slice(0, 300)}</td></tr>`;
}

function Dropped({ server: s }: ConnectorDetailProps): Html {
  if (!s.dropped_tools.length) return html``;
  const items = s.dropped_tools.slice(0, 100).map((d) => html`<li><code>${d.name}</code>: ${d.reason}</li>`);
  return html`<h2>Dropped tools</h2><p class="muted">Listed by the server but not offered to agents.</p><ul>${items}</ul>`;
}

function Manage({ server: s, values: v, errors: e, methods, nameMax }: ConnectorDetailProps): Html {
  const confirm = "Disconnect this server? Its tools leave every agent and its credentials are erased.";
  return html`<section class="panel" aria-labelledby="refresh-h"><h2 id="refresh-h">Refresh</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/connectors/${s.id}/refresh" novalidate>
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: nameMax })}
${checkbox({ name: "replace_credentials", id: "f-replace", label: "Replace the credentials", checked: v.replace_credentials === "on" })}
${CredentialFields({ values: v, errors: e, methods, hint: "Used only when “Replace the credentials” is ticked; otherwise the stored ones are kept." })}
<div class="actions">${submit("Refresh tools", { busy: "Refreshing…" })}</div>
</form></section>
<div class="actions">${actionButton(`/dashboard/connectors/${s.id}/disconnect`, "Disconnect", { kind: "danger", busy: "Disconnecting…", confirm })}</div>`;
}

export function ConnectorDetail(p: ConnectorDetailProps): Html {
  const s = p.server;
  const revision = typeof s.server_info.protocolVersion === "string" ? html` · <span data-revision>MCP ${s.server_info.protocolVersion}</span>` : "";
  const auth = s.auth_method === "none" ? "no authentication" : s.auth_method;
  return html`<p><a href="/dashboard/connectors">← Connectors</a></p>
<h1>${s.name} ${connectorStatusBadge(s.status)}</h1>
<p class="muted"><code>${s.slug}</code> · ${s.url} · ${auth} · last discovery ${when(s.last_discovered_at)}${revision}</p>
${s.last_error ? html`<p class="error" role="status">${s.last_error}</p>` : ""}
<h2>Discovered tools (${s.tool_count})</h2>
${listTable({
  caption: "Discovered tools",
  columns: ["Action", "Hints from the server", "Description"],
  rows: p.tools,
  row: toolRow,
  empty: s.tool_count === 0 ? "None." : null,
})}
${pager(`/dashboard/connectors/${s.id}`, p.query, p.page, p.hasMore)}
${Dropped(p)}
${p.manage ? Manage(p) : ""}`;
}
