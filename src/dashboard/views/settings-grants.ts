// The OAuth grants MCP clients hold for members of the org, each with its scopes and a revoke button.
import { type Html, html } from "../../html/html.ts";
import type { listGrants } from "../../oauth/grants.ts";
import { actionButton } from "../kit/fields.ts";
import { listTable, pager, when } from "../kit/table.ts";

type Grant = Awaited<ReturnType<typeof listGrants>>["grants"][number];

export interface GrantsProps {
  grants: Grant[];
  total: number;
  query: Record<string, string | undefined>;
  page: number;
  hasMore: boolean;
}

function grantRow(g: Grant): Html {
  const revoke = actionButton(`/dashboard/settings/grants/${g.id}/revoke`, "Revoke", { kind: "danger", confirm: "Revoke this client's access?" });
  return html`<tr><td>${g.client.name}</td><td>${g.member.email}</td>\
<td>${g.scopes.map((s) => html`<span class="badge">${s}</span>`)}</td><td>${when(g.created_at)}</td><td>${revoke}</td></tr>`;
}

export function OAuthGrants(p: GrantsProps): Html {
  return html`<section class="panel" aria-labelledby="grants-h"><h2 id="grants-h">Connected AI clients (OAuth grants)</h2>
<p class="muted">MCP clients members have authorised to act for them. Revoking one ends its tokens at once.</p>
${listTable({
  caption: "OAuth grants",
  columns: ["Client", "Member", "Scopes", "Since", { label: "Actions", hidden: true }],
  rows: p.grants,
  row: grantRow,
  empty: p.total === 0 ? "No client holds a grant." : null,
})}
${pager("/dashboard/settings", p.query, p.page, p.hasMore, "grants_page", "Grant pages")}
</section>`;
}
