// The settings sections' navigation, above every settings page: each section has a page of its own
// (widget, identity, members and business hours here; email, saved replies; hand-off on the agents'
// pages; the activity log), and the main settings page still shows widget, identity, model, grants
// and members together. A section is linked only for a member holding its role.
import type { Role } from "../../auth/roles.ts";
import { type Html, html } from "../../html/html.ts";
import type { Viewer } from "../shell.ts";

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
  { key: "texts", label: "Languages", href: "/dashboard/settings/texts", role: "org:manage" },
  { key: "activity", label: "Activity log", href: "/dashboard/activity", role: "org:manage" },
] as const satisfies readonly { key: string; label: string; href: string; role: Role }[];

export type SettingsSectionKey = (typeof SECTIONS)[number]["key"];

/** The sections `viewer` may open, the current one marked. */
export function settingsNav(viewer: Pick<Viewer, "can">, current: SettingsSectionKey | null): Html {
  const shown = SECTIONS.filter((s) => viewer.can(s.role));
  const item = (s: (typeof SECTIONS)[number]) => html`<li><a href="${s.href}"${s.key === current ? html` aria-current="page"` : ""}>${s.label}</a></li>`;
  return html`<nav class="subnav" aria-label="Settings sections"><ul>${shown.map(item)}</ul></nav>`;
}
