// The dashboard's overview (/dashboard): the org, who is signed in with which roles, the last 7
// days' headline figures, the setup checklist, and a card for each section the member reaches.
import { type Html, html } from "../../html/html.ts";
import type { NavItem } from "../kit/nav.ts";
import type { setupStatus } from "../../setup/status.ts";

export type SetupStatus = Awaited<ReturnType<typeof setupStatus>>;

export interface OverviewProps {
  orgName: string;
  email: string;
  /** The member's roles, in words. */
  roles: string;
  /** The last 7 days' headline cards, when the member may read reports. */
  headlines: Html | null;
  /** The setup checklist, for an org manager. */
  status: SetupStatus | null;
  /** The nav sections the member reaches, the overview left out. */
  sections: readonly NavItem[];
}

const BLURBS: Record<string, string> = {
  agents: "Instructions, skills, routing, the widget's look and the actions each agent may use.",
  knowledge: "The documents agents answer from: write, import, publish.",
  inbox: "Tickets, conversations and customers.",
  reports: "Conversations, AI resolution, hand-offs, response times and CSAT over a period.",
  campaigns: "Email series: steps, previews, activation, the outbox.",
  connectors: "MCP servers whose tools agents may call.",
  "custom-actions": "HTTP endpoints of your own systems, callable as actions.",
  settings: "Widget keys and snippet, identity verification, origins, connected clients, members, the activity log.",
  webhooks: "Signed event deliveries to your own systems, their log and replays.",
};

/** Where each setup_status item is done in the dashboard. */
const CHECKLIST: Record<string, { label: string; href: string }> = {
  active_agent: { label: "An active agent", href: "/dashboard/agents" },
  docs: { label: "Published documents", href: "/dashboard/knowledge" },
  widget_installed: { label: "The widget on your site", href: "/dashboard/settings#keys-h" },
  identity_verification: { label: "Identity verification", href: "/dashboard/settings#identity-h" },
  connectors: { label: "Connectors or custom actions", href: "/dashboard/connectors" },
};

function lastWeek(headlines: Html): Html {
  const heading = html`<h2 id="last7-h">Last 7 days <a class="muted" href="/dashboard/reports">Reports</a></h2>`;
  return html`<section aria-labelledby="last7-h">${heading}${headlines}</section>`;
}

function setupItem(item: SetupStatus["items"][number]): Html {
  const tone = item.done ? "ok" : item.required ? "warn" : "";
  const state = item.done ? "done" : item.required ? "to do" : "optional";
  const where = CHECKLIST[item.key];
  const link = html`<a href="${where?.href ?? "/dashboard"}">${where?.label ?? item.key}</a>`;
  return html`<li><span class="badge ${tone}">${state}</span> ${link} <span class="muted">${item.detail}</span></li>`;
}

function setup(status: SetupStatus): Html {
  const ready = status.ready ? html`<span class="badge ok">ready</span>` : html`<span class="badge warn">not ready yet</span>`;
  const items = status.items.map(setupItem);
  return html`<section class="panel" aria-labelledby="setup-h"><h2 id="setup-h">Setup ${ready}</h2><ul class="checklist">${items}</ul></section>`;
}

function sectionCards(sections: readonly NavItem[]): Html {
  if (sections.length === 0) return html`<p>Your membership holds no dashboard roles yet. Ask an admin to grant one.</p>`;
  const cards = sections.map((s) => html`<a class="panel" href="${s.href}"><strong>${s.label}</strong><span class="muted">${BLURBS[s.key] ?? ""}</span></a>`);
  return html`<div class="cards">${cards}</div>`;
}

export function Overview(p: OverviewProps): Html {
  return html`<h1>${p.orgName}</h1>
<p class="muted">Signed in as ${p.email} · Your roles: ${p.roles}</p>
${p.headlines ? lastWeek(p.headlines) : ""}
${p.status ? setup(p.status) : ""}
${sectionCards(p.sections)}`;
}
