// The members API: /api/members and /api/members/invitations, role members:manage.
// Routes validate, call src/orgs/members.ts or invitations.ts with the member as actor, and let
// AppError map to the error shape (404 for another org's member or invitation).
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { requireMember } from "../auth/guard.ts";
import { ROLES } from "../auth/roles.ts";
import type { Deps } from "../deps.ts";
import { jsonResponse } from "../kit/json-response.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { INVITATION_LIMITS, INVITATION_PAGE, inviteMember, listInvitations, revokeInvitation } from "./invitations.ts";
import { changeMemberRoles, MEMBER_PAGE, listMembers, removeMember } from "./members.ts";

const Roles = t.Array(t.Union(ROLES.map((r) => t.Literal(r))), {
  minItems: 1,
  maxItems: ROLES.length,
  uniqueItems: true,
  description: "Role names (src/auth/roles.ts). A member grants only roles they hold themselves.",
});
const Id = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
const Paging = (max: number) =>
  t.Object({
    page: t.Optional(t.Numeric({ minimum: 1, maximum: 100_000, multipleOf: 1, description: "1-based." })),
    per_page: t.Optional(t.Numeric({ minimum: 1, maximum: max, multipleOf: 1 })),
  });
const Member = t.Object({ id: t.String(), email: t.String(), name: t.String(), roles: t.Array(t.String()), joined_at: t.String({ format: "date-time" }) });
const Invitation = t.Object({
  id: t.String(),
  email: t.String(),
  roles: t.Array(t.String()),
  invited_by: t.Union([t.Object({ id: t.String(), email: t.String() }), t.Null()]),
  created_at: t.String({ format: "date-time" }),
  expires_at: t.String({ format: "date-time" }),
  status: t.Union([t.Literal("pending"), t.Literal("expired")]),
});

const tags = ["Members"];
const security = [{ dashboard: [] }];
/** The refusals every members route may answer, in the one error shape. */
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };

async function admin(deps: Pick<Deps, "config" | "db" | "now">, request: Request) {
  const { orgId, principal } = await requireMember(deps, request, "members:manage");
  return { orgId, actor: memberActor(principal.member.id) };
}

export function memberRoutes(deps: Pick<Deps, "accessTokens" | "cipher" | "config" | "db" | "now" | "tools">) {
  return new Elysia({ name: "members" })
    .get(
      "/api/members",
      async ({ query, request }) => {
        const { orgId } = await admin(deps, request);
        return listMembers(deps, orgId, { page: query.page, perPage: query.per_page });
      },
      {
        query: Paging(MEMBER_PAGE.max),
        response: { 200: t.Object({ members: t.Array(Member), page: t.Integer(), per_page: t.Integer(), total: t.Integer() }), ...errors },
        detail: { summary: "Members of the org with their roles, by email (members:manage).", tags, security },
      },
    )
    .patch(
      "/api/members/:id",
      async ({ body, params, request }) => {
        const { orgId, actor } = await admin(deps, request);
        return changeMemberRoles(deps, orgId, actor, params.id, body.roles);
      },
      {
        params: Id,
        body: t.Object({ roles: Roles }, { additionalProperties: false }),
        response: { 200: Member, ...errors },
        detail: {
          summary: "Replaces a member's roles. 409 last_admin when no member would hold both org:manage and members:manage; 403 role_not_held.",
          tags,
          security,
        },
      },
    )
    .delete(
      "/api/members/:id",
      async ({ params, request }) => {
        const { orgId, actor } = await admin(deps, request);
        await removeMember(deps, orgId, actor, params.id);
        return new Response(null, { status: 204 });
      },
      {
        params: Id,
        response: { 204: t.Null({ description: "No content" }), ...errors },
        detail: {
          summary: "Removes a member: their OAuth grants for the org are revoked; sessions end when no org is left to them. 409 last_admin.",
          tags,
          security,
        },
      },
    )
    .get(
      "/api/members/invitations",
      async ({ query, request }) => {
        const { orgId } = await admin(deps, request);
        return listInvitations(deps, orgId, { page: query.page, perPage: query.per_page });
      },
      {
        query: Paging(INVITATION_PAGE.max),
        response: { 200: t.Object({ invitations: t.Array(Invitation), page: t.Integer(), per_page: t.Integer(), total: t.Integer() }), ...errors },
        detail: { summary: "Open invitations (pending and expired), newest first.", tags, security },
      },
    )
    .post(
      "/api/members/invitations",
      async ({ body, request }) => {
        const { orgId, actor } = await admin(deps, request);
        return jsonResponse(await inviteMember(deps, orgId, actor, body), 201);
      },
      {
        body: t.Object({ email: t.String({ minLength: 1, maxLength: INVITATION_LIMITS.email }), roles: Roles }, { additionalProperties: false }),
        response: {
          201: t.Object({
            invitation: Invitation,
            invite_url: t.String({ description: "The /invite/<token> link, returned this once." }),
            emailed: t.Boolean({ description: "Whether the link was also queued as an email to the invitee (SMTP_URL set)." }),
          }),
          ...errors,
        },
        detail: {
          summary: `Invites an email address with roles; the link is valid ${INVITATION_LIMITS.ttlDays} days and replaces an earlier one for that address. 409 already_member or too_many_invitations (${INVITATION_LIMITS.openPerOrg} open).`,
          tags,
          security,
        },
      },
    )
    .delete(
      "/api/members/invitations/:id",
      async ({ params, request }) => {
        const { orgId, actor } = await admin(deps, request);
        await revokeInvitation(deps, orgId, actor, params.id);
        return new Response(null, { status: 204 });
      },
      {
        params: Id,
        response: { 204: t.Null({ description: "No content" }), ...errors },
        detail: { summary: "Revokes an open invitation: its link stops working.", tags, security },
      },
    );
}
