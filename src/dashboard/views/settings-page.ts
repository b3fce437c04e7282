// The settings pages made of sections: the main page (the org:manage sections, each shown only to a
// member holding org:manage, then members and roles), and the widget, identity and members pages
// (one or two of those sections each), all under the settings navigation.
import { type Html, html } from "../../html/html.ts";
import { errorSummary, type FieldErrors, type FormValues } from "../kit/fields.ts";
import type { Viewer } from "../shell.ts";
import { type GrantsProps, OAuthGrants } from "./settings-grants.ts";
import { IdentityVerification, type IdentityProps } from "./settings-identity.ts";
import { type MembersProps, MembersSection, NewInvitation } from "./settings-members.ts";
import { type ModelProps, OrgModel } from "./settings-model.ts";
import { settingsNav } from "./settings-nav.ts";
import { AllowedOrigins, type AllowedOriginsProps, WidgetKeys, type WidgetKeysProps } from "./settings-widget.ts";

/** What one answer of the settings page shows besides the sections: a refused form, or what exists in this answer only. */
export interface SettingsForms {
  values?: FormValues;
  errors?: FieldErrors;
  /** The identity secret just rotated: shown on this answer only. */
  secret?: string;
  /** The invitation just made: its link is shown on this answer only. */
  invite?: { email: string; url: string; emailed: boolean };
  /** Invite-form checkboxes as submitted (a re-rendered form keeps them). */
  inviteRoles?: string[];
  status?: number;
}

export interface OrgSectionsProps {
  keys: WidgetKeysProps;
  identity: IdentityProps;
  origins: AllowedOriginsProps;
  model: ModelProps;
  grants: GrantsProps;
}

export interface SettingsPageProps {
  viewer: Pick<Viewer, "can">;
  errors: FieldErrors;
  /** The invitation just made, with how long its link works. */
  invite?: { email: string; url: string; emailed: boolean; ttlDays: number };
  /** The org:manage sections; null for a member without that role. */
  org: OrgSectionsProps | null;
  members: MembersProps;
}

function orgSections(o: OrgSectionsProps): Html {
  return html`${WidgetKeys(o.keys)}

${IdentityVerification(o.identity)}

${AllowedOrigins(o.origins)}

${OrgModel(o.model)}

${OAuthGrants(o.grants)}`;
}

export function SettingsPage(p: SettingsPageProps): Html {
  const savedReplies = p.viewer.can("inbox:manage")
    ? html`<p><a href="/dashboard/settings/saved-replies">Saved replies: snippets for the reply form</a></p>`
    : "";
  return html`${errorSummary(p.errors)}<h1>Settings</h1>
${p.invite ? NewInvitation(p.invite) : ""}
${settingsNav(p.viewer, null)}
<p><a href="/dashboard/settings/email">Email: support address and your notifications</a></p>
${savedReplies}
${p.org ? orgSections(p.org) : html``}
${MembersSection(p.members)}`;
}

/** The widget section (keys and snippet, allowed origins) on a page of its own. */
export function WidgetPage(p: { viewer: Pick<Viewer, "can">; keys: WidgetKeysProps; origins: AllowedOriginsProps }): Html {
  return html`<h1>Settings</h1>
${settingsNav(p.viewer, "widget")}
${WidgetKeys(p.keys)}

${AllowedOrigins(p.origins)}`;
}

/** Identity verification on a page of its own. */
export function IdentityPage(p: { viewer: Pick<Viewer, "can">; identity: IdentityProps }): Html {
  return html`<h1>Settings</h1>
${settingsNav(p.viewer, "identity")}
${IdentityVerification(p.identity)}`;
}

/** The members section on a page of its own (the settings nav's "Members"). */
export function MembersPage(p: { viewer: Pick<Viewer, "can">; members: MembersProps }): Html {
  return html`<h1>Settings</h1>
${settingsNav(p.viewer, "members")}
${MembersSection(p.members)}`;
}
