// The settings page: the org:manage sections (settings-org.ts) and the members section
// (settings-members.ts), each shown only to a member holding its role; the page opens for either.
import { html } from "../html/html.ts";
import { type DashboardContext, errorSummary, shellPage } from "./kit/index.ts";
import { membersSection, newInvitation } from "./settings-members.ts";
import { settingsNav } from "./settings-nav.ts";
import { orgSettings, type SettingsForms } from "./settings-org.ts";

export async function settingsPage(ctx: DashboardContext, query: Record<string, string | undefined>, forms: SettingsForms = {}): Promise<Response> {
  const orgSections = ctx.can("org:manage") ? await orgSettings(ctx, query, forms) : html``;
  const body = html`<h1>Settings</h1>
${forms.invite ? newInvitation(forms.invite) : ""}
${settingsNav(ctx, null)}
<p><a href="/dashboard/settings/email">Email: support address and your notifications</a></p>
${ctx.can("inbox:manage") ? html`<p><a href="/dashboard/settings/saved-replies">Saved replies: snippets for the reply form</a></p>` : ""}
${orgSections}
${await membersSection(ctx, query, forms)}`;
  return shellPage(ctx, { title: "Settings", active: "settings", body: html`${errorSummary(forms.errors ?? {})}${body}`, status: forms.status });
}

/** The widget (keys and snippet, allowed origins) or identity verification section on a page of its own. */
export async function orgSectionPage(ctx: DashboardContext, query: Record<string, string | undefined>, only: "widget" | "identity"): Promise<Response> {
  const body = html`<h1>Settings</h1>
${settingsNav(ctx, only)}
${await orgSettings(ctx, query, {}, only)}`;
  return shellPage(ctx, { title: only === "widget" ? "Widget" : "Identity verification", active: "settings", body });
}

/** The members section on a page of its own (the settings nav's "Members"). */
export async function membersPage(ctx: DashboardContext, query: Record<string, string | undefined>): Promise<Response> {
  const body = html`<h1>Settings</h1>
${settingsNav(ctx, "members")}
${await membersSection(ctx, query, {})}`;
  return shellPage(ctx, { title: "Members and roles", active: "settings", body });
}
