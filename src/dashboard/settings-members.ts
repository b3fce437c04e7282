// The members section's actions: invite (the link answered on this page, once), change a member's
// roles, remove a member (or leave), revoke an invitation. Through src/orgs/invitations.ts
// and src/orgs/members.ts, as /api/members does; what they refuse is said next to the field.
import { memberActor } from "../kit/actor.ts";
import { inviteMember, revokeInvitation } from "../orgs/invitations.ts";
import { changeMemberRoles, removeMember } from "../orgs/members.ts";
import { AppError } from "../errors.ts";
import { type DashboardContext, detailErrors, type FieldErrors, type FormValues, redirect, submitForm } from "./kit/index.ts";
import { rolesKey } from "./views/settings-members.ts";
import { settingsPage } from "./settings-page.ts";

const actor = (ctx: DashboardContext) => memberActor(ctx.principal.member.id);

export function invite(ctx: DashboardContext, values: FormValues, roles: string[]): Promise<Response> {
  return submitForm({
    values,
    validate: (v) => {
      const email = (v.invite_email ?? "").trim();
      const errors: FieldErrors = {};
      if (email === "") errors.invite_email = "Enter the email address to invite.";
      if (roles.length === 0) errors.invite_roles = "Choose at least one role.";
      return { input: { email, roles }, errors };
    },
    call: (input) => inviteMember(ctx.deps, ctx.orgId, actor(ctx), input),
    // Answered directly, never through a redirect: the link exists in this response only.
    done: (created) => settingsPage(ctx, {}, { invite: { email: created.invitation.email, url: created.invite_url, emailed: created.emailed }, status: 201 }),
    render: (refused) => settingsPage(ctx, {}, { ...refused, inviteRoles: roles }),
    refused: (error) => {
      if (error.status === 401) return null;
      if (error.status === 400) return detailErrors(error, (parts) => (parts[0]?.startsWith("roles") ? "invite_roles" : "invite_email"), "invite_email");
      return error.code === "role_not_held" ? { invite_roles: error.message } : { invite_email: error.message };
    },
  });
}

export function changeRoles(ctx: DashboardContext, memberId: string, roles: string[]): Promise<Response> {
  return submitForm({
    values: {},
    validate: () => ({ input: roles, errors: {} }),
    call: (input) => changeMemberRoles(ctx.deps, ctx.orgId, actor(ctx), memberId, input),
    done: (member) => {
      // Someone who just gave up members:manage (and org:manage) can no longer open settings.
      const stillHere = memberId !== ctx.principal.member.id || member.roles.includes("members:manage") || member.roles.includes("org:manage");
      return redirect(ctx.deps, stillHere ? "/dashboard/settings/members#members-h" : "/dashboard", `Roles of ${member.email} saved.`);
    },
    render: ({ errors, status }) => settingsPage(ctx, {}, { errors, status }),
    refused: (error) =>
      ![400, 403, 409].includes(error.status) || error.code === "cross_site_request"
        ? null
        : { [rolesKey(memberId)]: error.status === 400 ? "Choose at least one role." : error.message },
  });
}

export async function remove(ctx: DashboardContext, memberId: string): Promise<Response> {
  const self = memberId === ctx.principal.member.id;
  try {
    await removeMember(ctx.deps, ctx.orgId, actor(ctx), memberId);
  } catch (error) {
    // The last admin: said in the flash, on the list.
    if (error instanceof AppError && error.status === 409)
      return redirect(ctx.deps, "/dashboard/settings/members#members-h", { kind: "error", text: error.message });
    throw error;
  }
  return self
    ? redirect(ctx.deps, "/dashboard", `You left ${ctx.orgName}.`)
    : redirect(ctx.deps, "/dashboard/settings/members#members-h", "Member removed; their access to this organisation has ended.");
}

export async function revoke(ctx: DashboardContext, invitationId: string): Promise<Response> {
  await revokeInvitation(ctx.deps, ctx.orgId, actor(ctx), invitationId);
  return redirect(ctx.deps, "/dashboard/settings/members#invitations-h", "Invitation revoked; its link no longer works.");
}
