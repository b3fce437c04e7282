// The settings sections' navigation, above every settings page: each section has a page of its own
// (widget, identity, members and business hours here; email, saved replies; hand-off on the agents'
// pages; the activity log, activity.ts), and the main settings page still shows widget, identity, model, grants and members together.
import { html } from "../html/html.ts";
import type { DashboardContext } from "./kit/index.ts";

const SECTIONS = [
  { key: "widget", label: "Widget", href: "/dashboard/settings/widget", role: "org:manage" },
  { key: "identity", label: "Identity", href: "/dashboard/settings/identity", role: "org:manage" },
  { key: "members", label: "Members", href: "/dashboard/settings/members", role: "members:manage" },
  { key: "email", label: "Email", href: "/dashboard/settings/email", role: "inbox:view" },
  { key: "handoff", label: "Hand-off", href: "/dashboard/agents", role: "org:manage" },
  { key: "saved-replies", label: "Saved replies", href: "/dashboard/settings/saved-replies", role: "inbox:manage" },
  { key: "hours", label: "Business hours", href: "/dashboard/settings/hours", role: "org:manage" },
  { key: "translation", label: "Translation", href: "/dashboard/settings/translation", role: "agents:manage" },
  { key: "help-centre", label: "Help centre", href: "/dashboard/settings/help-centre", role: "org:manage" },
  { key: "activity", label: "Activity log", href: "/dashboard/activity", role: "org:manage" },
] as const;

export function settingsNav(ctx: DashboardContext, current: (typeof SECTIONS)[number]["key"] | null) {
  const shown = SECTIONS.filter((s) => ctx.can(s.role as Parameters<DashboardContext["can"]>[0]));
  return html`<nav class="subnav" aria-label="Settings sections"><ul>${shown.map((s) => html`<li><a href="${s.href}"${s.key === current ? html` aria-current="page"` : ""}>${s.label}</a></li>`)}</ul></nav>`;
}
