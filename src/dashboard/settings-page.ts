// The settings page: the org:manage sections (settings-org.ts) and the members section
// (settings-members.ts), each shown only to a member holding its role; the page opens for either.
import { html } from "../html/html.ts";
import { type DashboardContext, errorSummary, shellPage } from "./kit/index.ts";
import { membersSection } from "./settings-members.ts";
import { orgSettings, type SettingsForms } from "./settings-org.ts";

export async function settingsPage(ctx: DashboardContext, query: Record<string, string | undefined>, forms: SettingsForms = {}): Promise<Response> {
  const orgSections = ctx.can("org:manage") ? await orgSettings(ctx, query, forms) : html``;
  const body = html`<h1>Settings</h1>
<p><a href="/dashboard/settings/email">Email: support address and your notifications</a></p>
${ctx.can("inbox:manage") ? html`<p><a href="/dashboard/settings/saved-replies">Saved replies: snippets for the reply form</a></p>` : ""}
${orgSections}
${await membersSection(ctx, query, forms)}`;
  return shellPage(ctx, { title: "Settings", active: "settings", body: html`${errorSummary(forms.errors ?? {})}${body}`, status: forms.status });
}
