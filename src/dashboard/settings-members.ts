// The settings section of members and roles. With members:manage: the invite form (the new link
// shown once, at the top of the answer to the invite: `newInvitation`), each member's roles in a folded form, remove, and the
// pending invitations with revoke. With org:manage alone: the members, read only.
import { ROLE_PRESETS, ROLES } from "../auth/roles.ts";
import { attrs, type Html, html } from "../html/html.ts";
import { INVITATION_LIMITS, listInvitations } from "../orgs/invitations.ts";
import { ADMIN_ROLES, listMembers, ROLE_DESCRIPTIONS } from "../orgs/members.ts";
import { actionButton, checkbox, type DashboardContext, field, groupError, listTable, PAGE_SIZE, pageNumber, pager, submit, when } from "./kit/index.ts";
import type { SettingsForms } from "./settings-org.ts";

/**
 * The invitation just made, at the top of the page that answers the invite (above the nav and every
 * section, where the eye lands): its link, shown this once, and whether it was also emailed.
 */
export function newInvitation(invite: { email: string; url: string; emailed: boolean }): Html {
  const sent = invite.emailed
    ? html`We emailed the link to ${invite.email}. It is also shown here this once, should the email not arrive.`
    : html`Send it to them yourself: this server sends no email (no SMTP configured).`;
  return html`<div class="flash ok" role="status"><p><strong>Invitation for ${invite.email}: the link is shown this once.</strong> ${sent} It works once, for ${INVITATION_LIMITS.ttlDays} days.</p><label for="invite-link">Invitation link</label><input id="invite-link" type="text" readonly value="${invite.url}"><div class="actions"><button type="button" class="secondary" data-copy="invite-link" hidden>Copy link</button></div></div>`;
}

/** The error key of a member's role form (next to its checkboxes; the summary links to it). */
export const rolesKey = (memberId: string) => `roles-${memberId}`;

function roleChecks(name: string, idPrefix: string, checked: readonly string[], hints = true): Html {
  return html`<div class="grid2">${ROLES.map((role, i) => checkbox({ name, value: role, id: `${idPrefix}-${i}`, label: role, checked: checked.includes(role), hint: hints ? ROLE_DESCRIPTIONS[role] : undefined }))}</div>`;
}

/** Radio buttons: a preset's roles, or "Custom" (the boxes as ticked). Without a script; the boxes stay editable. */
function presetChoice(name: string, idPrefix: string): Html {
  const options = [
    { value: "", label: "Custom: the boxes below" },
    ...Object.entries(ROLE_PRESETS).map(([value, p]) => ({
      value,
      label: `${p.label} (${p.roles.length === ROLES.length ? "every role" : p.roles.join(", ")})`,
    })),
  ];
  return html`<fieldset class="presets"><legend>Start from</legend>${options.map((o, i) => html`<div class="check"><input type="radio" id="${idPrefix}-p${i}" name="${name}" value="${o.value}"${attrs({ checked: i === 0 })}><label for="${idPrefix}-p${i}">${o.label}</label></div>`)}</fieldset>`;
}

/**
 * Members and roles. With members:manage: the invite form (the new link shown once, on the answer
 * to the invite), each member's roles in a disclosure form, remove, pending invitations with
 * revoke. With org:manage alone: the members, read only. Both lists paginate.
 */
export async function membersSection(ctx: DashboardContext, query: Record<string, string | undefined>, forms: SettingsForms): Promise<Html> {
  const { deps, orgId } = ctx;
  const manage = ctx.can("members:manage");
  const v = forms.values ?? {};
  const e = forms.errors ?? {};
  const people = await listMembers(deps, orgId, { page: pageNumber(query.members_page), perPage: PAGE_SIZE });
  const peopleMore = people.page * people.per_page < people.total;
  const me = ctx.principal.member.id;
  const table = html`${listTable({
    caption: "Members",
    columns: ["Member", "Roles", "Since", ...(manage ? [{ label: "Actions", hidden: true as const }] : [])],
    rows: people.members,
    row: (m) => {
      const error = e[rolesKey(m.id)];
      const row = html`<tr><td>${m.email}${m.id === me ? html` <span class="badge accent">you</span>` : ""}${m.name ? html`<div class="hint">${m.name}</div>` : ""}</td><td>${m.roles.map((r) => html`<span class="badge">${r}</span>`)}</td><td>${when(m.joined_at)}</td>${manage ? html`<td>${actionButton(`/dashboard/settings/members/${m.id}/remove`, m.id === me ? "Leave" : "Remove", { kind: "danger", confirm: m.id === me ? `Leave ${ctx.orgName}? You lose access to it at once.` : `Remove ${m.email} from ${ctx.orgName}? Their sessions and connected AI clients lose access to it at once.` })}</td>` : ""}</tr>`;
      if (!manage) return row;
      // The role form in a row of its own, the table's full width, folded until opened (open when it failed).
      const key = `f-${rolesKey(m.id)}`;
      return html`${row}<tr><td colspan="4"><details${attrs({ open: Boolean(error) })}><summary>Edit roles of ${m.email}</summary>
<form method="post" action="/dashboard/settings/members/${m.id}/roles" novalidate>
${presetChoice("preset", `r-${m.id}`)}
<fieldset${attrs({ id: key, "aria-describedby": error ? `${key}-error` : null })}><legend>Roles of ${m.email}</legend>
${roleChecks("roles", `r-${m.id}`, m.roles, false)}
${groupError(key, error)}
</fieldset>
<div class="actions">${submit("Save roles", { busy: "Saving…" })}</div>
</form></details></td></tr>`;
    },
    empty: null,
  })}
${pager("/dashboard/settings", query, people.page, peopleMore, "members_page", "Member pages")}`;
  if (!manage)
    return html`<section class="panel" aria-labelledby="members-h"><h2 id="members-h">Members and roles</h2>
<p class="muted">Inviting members and changing roles needs the <code>members:manage</code> role.</p>
${table}
</section>`;

  const invites = await listInvitations(deps, orgId, { page: pageNumber(query.invites_page), perPage: PAGE_SIZE });
  const invitesMore = invites.page * invites.per_page < invites.total;
  const checkedInvite = forms.inviteRoles ?? [];
  return html`<section class="panel" aria-labelledby="members-h"><h2 id="members-h">Members and roles</h2>
<p class="muted">An organisation keeps at least one member holding both ${ADMIN_ROLES.join(" and ")}. You can grant only roles you hold yourself.</p>
${table}
<h3 id="invite-h">Invite a member</h3>
<form method="post" action="/dashboard/settings/members/invite" novalidate aria-labelledby="invite-h">
${field({ name: "invite_email", label: "Email", type: "email", value: v.invite_email, error: e.invite_email, maxLength: INVITATION_LIMITS.email, hint: "They get a link to set a password, or to sign in if they have an account." })}
${presetChoice("invite_preset", "inv")}
<fieldset${attrs({ id: "f-invite_roles", "aria-describedby": e.invite_roles ? "f-invite_roles-error" : null })}><legend>Roles</legend>
${roleChecks("invite_roles", "inv", checkedInvite)}
${groupError("f-invite_roles", e.invite_roles)}
</fieldset>
<div class="actions">${submit("Invite", { busy: "Inviting…" })}</div>
</form>
<h3 id="invitations-h">Pending invitations</h3>
${listTable({
  caption: "Pending invitations",
  columns: ["Email", "Roles", "Invited by", "Expires", { label: "Actions", hidden: true }],
  rows: invites.invitations,
  row: (i) =>
    html`<tr><td>${i.email}</td><td>${i.roles.map((r) => html`<span class="badge">${r}</span>`)}</td><td>${i.invited_by?.email ?? "—"}</td><td>${i.status === "expired" ? html`<span class="badge warn">expired</span> ` : ""}${when(i.expires_at)}</td><td>${actionButton(`/dashboard/settings/invitations/${i.id}/revoke`, "Revoke", { kind: "danger", confirm: `Revoke the invitation for ${i.email}? Its link stops working.` })}</td></tr>`,
  empty: invites.total === 0 ? "No pending invitations." : null,
})}
${pager("/dashboard/settings", query, invites.page, invitesMore, "invites_page", "Invitation pages")}
</section>`;
}
