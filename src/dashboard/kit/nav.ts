// The dashboard's nav: its sections, each with the role its page needs, and whether a member
// reaches one. The shell draws it (views/shell.ts); the overview lists the same sections.
import type { Role } from "../../auth/roles.ts";

export interface NavItem {
  href: string;
  label: string;
  /** The role the page needs; a list: any one of them (the page shows each member what their roles reach). */
  role: Role | readonly Role[];
  key: string;
}

/** Whether the member may open a nav item's page. */
export function reaches(ctx: { can(role: Role): boolean }, item: NavItem): boolean {
  return typeof item.role === "string" ? ctx.can(item.role) : item.role.some((r) => ctx.can(r));
}

/** The nav: a page the member may not use is not linked (and answers 403 if opened anyway). */
export const NAV: NavItem[] = [
  { key: "home", href: "/dashboard", label: "Overview", role: "agents:view" },
  { key: "agents", href: "/dashboard/agents", label: "Agents", role: "agents:view" },
  { key: "knowledge", href: "/dashboard/knowledge", label: "Knowledge base", role: "knowledge:view" },
  { key: "inbox", href: "/dashboard/inbox", label: "Inbox", role: "inbox:view" },
  { key: "reports", href: "/dashboard/reports", label: "Reports", role: "inbox:view" },
  { key: "campaigns", href: "/dashboard/campaigns", label: "Campaigns", role: "automation:view" },
  { key: "connectors", href: "/dashboard/connectors", label: "Connectors", role: "integrations:view" },
  { key: "custom-actions", href: "/dashboard/custom-actions", label: "Custom actions", role: "integrations:view" },
  { key: "settings", href: "/dashboard/settings", label: "Settings", role: ["org:manage", "members:manage"] },
  { key: "webhooks", href: "/dashboard/webhooks", label: "Webhooks", role: "org:manage" },
];
