// Members and roles. With members:manage: each member's roles in a folded form, remove (or leave),
// the invite form, and the pending invitations with revoke; the link of an invitation just made is
// shown once, at the top of the page answering the invite. With org:manage alone: the members, read
// only. Both lists paginate.
import { attrs, type Html, html } from "../../html/html.ts";
import type { ROLE_PRESETS, Role } from "../../auth/roles.ts";
import type { InvitationView } from "../../orgs/invitations.ts";
import type { MemberView } from "../../orgs/members.ts";
import { actionButton, checkbox, type FieldErrors, field, type FormValues, groupError, submit } from "../kit/fields.ts";
import { listTable, pager, when } from "../kit/table.ts";

/** The error key of a member's role form (next to its checkboxes; the summary links to it). */
export const rolesKey = (memberId: string) => `roles-${memberId}`;

/** What the role forms offer: every role with what it allows, the presets, the roles an org must keep. */
export interface RoleChoices {
  roles: readonly Role[];
  descriptions: Record<Role, string>;
  presets: typeof ROLE_PRESETS;
  adminRoles: readonly string[];
}

export interface MembersProps {
  me: string;
  orgName: string;
  manage: boolean;
  choices: RoleChoices;
  members: { rows: MemberView[]; page: number; hasMore: boolean };
  /** The pending invitations (members:manage only). */
  invitations: { rows: InvitationView[]; total: number; page: number; hasMore: boolean } | null;
  emailMax: number;
  query: Record<string, string | undefined>;
  values: FormValues;
  errors: FieldErrors;
  /** Invite-form checkboxes as submitted (a re-rendered form keeps them). */
  inviteRoles: string[];
}

/**
 * The invitation just made, at the top of the page that answers the invite (above the nav and every
 * section, where the eye lands): its link, shown this once, and whether it was also emailed.
 */
export function NewInvitation(invite: { email: string; url: string; emailed: boolean; ttlDays: number }): Html {
  const sent = invite.emailed
    ? html`We emailed the link to ${invite.email}. It is also shown here this once, should the email not arrive.`
    : html`Send it to them yourself: this server sends no email (no SMTP configured).`;
  return html`<div class="flash ok" role="status"><p><strong>Invitation for ${invite.email}: the link is shown this once.</strong> \
${sent} It works once, for ${invite.ttlDays} days.</p><label for="invite-link">Invitation link</label>\
<input id="invite-link" type="text" readonly value="${invite.url}">\
<div class="actions"><button type="button" class="secondary" data-copy="invite-link" hidden>Copy link</button></div></div>`;
}

function roleChecks(c: RoleChoices, name: string, idPrefix: string, checked: readonly string[], hints = true): Html {
  const box = (role: Role, i: number) =>
    checkbox({ name, value: role, id: `${idPrefix}-${i}`, label: role, checked: checked.includes(role), hint: hints ? c.descriptions[role] : undefined });
  return html`<div class="grid2">${c.roles.map(box)}</div>`;
}

/** Radio buttons: a preset's roles, or "Custom" (the boxes as ticked). Without a script; the boxes stay editable. */
function presetChoice(c: RoleChoices, name: string, idPrefix: string): Html {
  const options = [
    { value: "", label: "Custom: the boxes below" },
    ...Object.entries(c.presets).map(([value, p]) => ({
      value,
      label: `${p.label} (${p.roles.length === c.roles.length ? "every role" : p.roles.join(", ")})`,
    })),
  ];
  const radio = (o: { value: string; label: string }, i: number) =>
    html`<div class="check"><input type="radio" id="${idPrefix}-p${i}" name="${name}" value="${o.value}"${attrs({ checked: i === 0 })}>\
<label for="${idPrefix}-p${i}">${o.label}</label></div>`;
  return html`<fieldset class="presets"><legend>Start from</legend>${options.map(radio)}</fieldset>`;
}

function memberRow(p: MembersProps, m: MemberView): Html {
  const self = m.id === p.me;
  const confirm = self
    ? `Leave ${p.orgName}? You lose access to it at once.`
    : `Remove ${m.email} from ${p.orgName}? Their sessions and connected AI clients lose access to it at once.`;
  const remove = p.manage
    ? html`<td>${actionButton(`/dashboard/settings/members/${m.id}/remove`, self ? "Leave" : "Remove", { kind: "danger", confirm })}</td>`
    : "";
  const who = html`${m.email}${self ? html` <span class="badge accent">you</span>` : ""}${m.name ? html`<div class="hint">${m.name}</div>` : ""}`;
  const row = html`<tr><td>${who}</td><td>${m.roles.map((r) => html`<span class="badge">${r}</span>`)}</td><td>${when(m.joined_at)}</td>${remove}</tr>`;
  if (!p.manage) return row;
  // The role form in a row of its own, the table's full width, folded until opened (open when it failed).
  const error = p.errors[rolesKey(m.id)];
  const key = `f-${rolesKey(m.id)}`;
  return html`${row}<tr><td colspan="4"><details${attrs({ open: Boolean(error) })}><summary>Edit roles of ${m.email}</summary>
<form method="post" action="/dashboard/settings/members/${m.id}/roles" novalidate>
${presetChoice(p.choices, "preset", `r-${m.id}`)}
<fieldset${attrs({ id: key, "aria-describedby": error ? `${key}-error` : null })}><legend>Roles of ${m.email}</legend>
${roleChecks(p.choices, "roles", `r-${m.id}`, m.roles, false)}
${groupError(key, error)}
</fieldset>
<div class="actions">${submit("Save roles", { busy: "Saving…" })}</div>
</form></details></td></tr>`;
}

function invitationRow(i: InvitationView): Html {
  const revoke = actionButton(`/dashboard/settings/invitations/${i.id}/revoke`, "Revoke", {
    kind: "danger",
    confirm: `Revoke the invitation for ${i.email}? Its link stops working.`,
  });
  const expired = i.status === "expired" ? html`<span class="badge warn">expired</span> ` : "";
  return html`<tr><td>${i.email}</td><td>${i.roles.map((r) => html`<span class="badge">${r}</span>`)}</td>\
<td>${i.invited_by?.email ?? "—"}</td><td>${expired}${when(i.expires_at)}</td><td>${revoke}</td></tr>`;
}

function inviteForm(p: MembersProps, invitations: NonNullable<MembersProps["invitations"]>): Html {
  const e = p.errors;
  const email = field({
    name: "invite_email",
    label: "Email",
    type: "email",
    value: p.values.invite_email,
    error: e.invite_email,
    maxLength: p.emailMax,
    hint: "They get a link to set a password, or to sign in if they have an account.",
  });
  return html`<h3 id="invite-h">Invite a member</h3>
<form method="post" action="/dashboard/settings/members/invite" novalidate aria-labelledby="invite-h">
${email}
${presetChoice(p.choices, "invite_preset", "inv")}
<fieldset${attrs({ id: "f-invite_roles", "aria-describedby": e.invite_roles ? "f-invite_roles-error" : null })}><legend>Roles</legend>
${roleChecks(p.choices, "invite_roles", "inv", p.inviteRoles)}
${groupError("f-invite_roles", e.invite_roles)}
</fieldset>
<div class="actions">${submit("Invite", { busy: "Inviting…" })}</div>
</form>
<h3 id="invitations-h">Pending invitations</h3>
${listTable({
  caption: "Pending invitations",
  columns: ["Email", "Roles", "Invited by", "Expires", { label: "Actions", hidden: true }],
  rows: invitations.rows,
  row: invitationRow,
  empty: invitations.total === 0 ? "No pending invitations." : null,
})}
${pager("/dashboard/settings", p.query, invitations.page, invitations.hasMore, "invites_page", "Invitation pages")}`;
}

export function MembersSection(p: MembersProps): Html {
  const table = html`${listTable({
    caption: "Members",
    columns: ["Member", "Roles", "Since", ...(p.manage ? [{ label: "Actions", hidden: true as const }] : [])],
    rows: p.members.rows,
    row: (m) => memberRow(p, m),
    empty: null,
  })}
${pager("/dashboard/settings", p.query, p.members.page, p.members.hasMore, "members_page", "Member pages")}`;
  if (!p.manage || !p.invitations)
    return html`<section class="panel" aria-labelledby="members-h"><h2 id="members-h">Members and roles</h2>
<p class="muted">Inviting members and changing roles needs the <code>members:manage</code> role.</p>
${table}
</section>`;
  return html`<section class="panel" aria-labelledby="members-h"><h2 id="members-h">Members and roles</h2>
<p class="muted">An organisation keeps at least one member holding both ${p.choices.adminRoles.join(" and ")}. You can grant only roles you hold yourself.</p>
${table}
${inviteForm(p, p.invitations)}
</section>`;
}
