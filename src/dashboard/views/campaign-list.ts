// The campaigns list (archived campaigns behind a filter) and the form that creates a campaign.
import { type Html, html } from "../../html/html.ts";
import { errorSummary, field, type FieldErrors, type FormValues, listTable, pager, select, submit, when } from "../kit/index.ts";
import { statusBadge } from "./campaign-status.ts";
import type { Campaign } from "../../campaigns/model.ts";
import type { CAMPAIGN_LIMITS } from "../../campaigns/model.ts";

export interface CampaignListProps {
  /** The status filter ("" all but archived, "all" everything). */
  filter: string;
  page: { items: readonly Campaign[]; page: number; hasMore: boolean };
  /** How many archived campaigns the default filter hides. */
  archived: number;
  manage: boolean;
  values: FormValues;
  errors: FieldErrors;
  limits: typeof CAMPAIGN_LIMITS;
}

function campaignRow(c: Campaign): Html {
  const name = html`<td><a href="/dashboard/campaigns/${c.slug}">${c.name}</a> <span class="muted">${c.slug}</span></td>`;
  const audience = c.audience ? `${c.audience.all.length} condition${c.audience.all.length === 1 ? "" : "s"}` : "enrol by hand or API";
  return html`<tr>${name}<td>${statusBadge(c.status)}</td><td>${c.steps.length}</td><td>${audience}</td><td>${when(c.updatedAt)}</td></tr>`;
}

function createForm(p: CampaignListProps): Html {
  const { values: v, errors: e } = p;
  return html`<section class="panel" aria-labelledby="new-h"><h2 id="new-h">New campaign</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/campaigns" novalidate>
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: p.limits.name })}
${field({
  name: "slug",
  label: "Slug",
  value: v.slug,
  error: e.slug,
  maxLength: p.limits.slug,
  hint: "Optional: lower-case letters, digits and hyphens; derived from the name when empty.",
})}
<div class="actions">${submit("Create campaign", { busy: "Creating…" })}</div>
</form></section>`;
}

function archivedNote(archived: number): Html {
  const count = archived === 1 ? "One archived campaign is" : `${archived} archived campaigns are`;
  return html`<p class="muted">${count} not listed: <a href="/dashboard/campaigns?status=archived">show archived campaigns</a>.</p>`;
}

export function CampaignList(p: CampaignListProps): Html {
  const { filter } = p;
  const statuses = [
    { value: "", label: "All but archived" },
    ...["draft", "active", "paused", "archived"].map((s) => ({ value: s, label: s })),
    { value: "all", label: "All, archived too" },
  ];
  return html`<h1>Campaigns</h1>
<p class="muted">Email series sent to customers after they enrol, one step after another.</p>
<form method="get" action="/dashboard/campaigns" class="toolbar" aria-label="Filter campaigns">
${select({ name: "status", label: "Status", value: filter, options: statuses })}
<button type="submit" class="secondary">Filter</button>
</form>
${listTable({
  caption: "Campaigns",
  columns: ["Name", "Status", "Steps", "Audience", "Updated"],
  rows: p.page.items,
  row: campaignRow,
  empty: filter === "archived" ? "No archived campaigns." : filter && filter !== "all" ? "No campaign with this status." : "No campaigns yet.",
})}
${pager("/dashboard/campaigns", { status: filter || undefined }, p.page.page, p.page.hasMore)}
${p.archived > 0 ? archivedNote(p.archived) : ""}
${p.manage ? createForm(p) : ""}`;
}
