// Dashboard: settings. Under org:manage: widget keys (create, revoke) with the install snippet
// ready to copy, identity verification (switch, rotate with the new secret shown once, clear the
// previous secret), allowed origins, the organisation's model, OAuth grants held by MCP clients
// (list, revoke). Under members:manage: members and their roles (invite with the link shown once,
// change roles, remove, pending invitations with revoke). Each section shows only to a member
// holding its role, and the page opens for either (settings-page.ts reads the sections, views/ draws them;
// settings-org.ts and settings-members.ts act on their posts).
import { Elysia, t } from "elysia";
import { ROLES, rolesFromForm } from "../auth/roles.ts";
import { AppError } from "../errors.ts";
import { memberActor } from "../kit/actor.ts";
import { revokeGrantOfOrg } from "../oauth/grants.ts";
import { clearPreviousIdentitySecret, revokeWidgetKey, rotateIdentitySecret, setIdentityVerification } from "../orgs/widget-access.ts";
import { type DashboardContext, type DashboardDeps, formBody, formList, formValues, IdParams, redirect, withMember } from "./kit/index.ts";
import { changeRoles, invite, remove, revoke } from "./settings-members.ts";
import { createKey, setModel, setOrigins } from "./settings-org.ts";
import { membersPage, orgSectionPage, settingsPage } from "./settings-page.ts";

const Query = t.Object({
  keys_page: t.Optional(t.String({ maxLength: 10 })),
  grants_page: t.Optional(t.String({ maxLength: 10 })),
  members_page: t.Optional(t.String({ maxLength: 10 })),
  invites_page: t.Optional(t.String({ maxLength: 10 })),
});
const FormBody = formBody({ text: 100_000, item: 1000, items: 10 });
/** The members forms: an email, and role checkboxes (at most every role once). */
const MemberForm = formBody({ text: 1000, item: 64, items: ROLES.length });

export function settingsPages(deps: DashboardDeps) {
  const actor = (ctx: DashboardContext) => memberActor(ctx.principal.member.id);
  const org = "org:manage" as const;
  const members = "members:manage" as const;
  return new Elysia({ name: "dashboard-settings" })
    .get(
      "/dashboard/settings",
      ({ request, query }) =>
        withMember(deps, request, null, (ctx) => {
          // Either role opens the page; each section shows only to the role it needs.
          if (!ctx.can("org:manage") && !ctx.can("members:manage"))
            throw AppError.forbidden(`Settings need the org:manage or members:manage role. Ask an admin of ${ctx.orgName} to grant one.`);
          return settingsPage(ctx, query);
        }),
      { query: Query },
    )
    .get("/dashboard/settings/widget", ({ request, query }) => withMember(deps, request, org, (ctx) => orgSectionPage(ctx, query, "widget")), { query: Query })
    .get("/dashboard/settings/identity", ({ request, query }) => withMember(deps, request, org, (ctx) => orgSectionPage(ctx, query, "identity")), {
      query: Query,
    })
    .get(
      "/dashboard/settings/members",
      ({ request, query }) =>
        withMember(deps, request, null, (ctx) => {
          if (!ctx.can("org:manage") && !ctx.can("members:manage"))
            throw AppError.forbidden(`Members need the org:manage or members:manage role. Ask an admin of ${ctx.orgName} to grant one.`);
          return membersPage(ctx, query);
        }),
      { query: Query },
    )
    .post("/dashboard/settings/keys", ({ request, body }) => withMember(deps, request, org, (ctx) => createKey(ctx, formValues(body))), { body: FormBody })
    .post(
      "/dashboard/settings/keys/:id/revoke",
      ({ request, params }) =>
        withMember(deps, request, org, async (ctx) => {
          await revokeWidgetKey(deps, ctx.orgId, actor(ctx), params.id);
          return redirect(deps, "/dashboard/settings/widget#keys-h", "Widget key revoked.");
        }),
      { params: IdParams },
    )
    .post(
      "/dashboard/settings/identity",
      ({ request, body }) =>
        withMember(deps, request, org, async (ctx) => {
          const on = formValues(body).enabled === "on";
          await setIdentityVerification(deps, ctx.orgId, actor(ctx), on);
          return redirect(deps, "/dashboard/settings/identity#identity-h", on ? "Identity verification is on." : "Identity verification is off.");
        }),
      { body: FormBody },
    )
    .post("/dashboard/settings/identity/rotate", ({ request }) =>
      withMember(deps, request, org, async (ctx) => {
        // Answered directly, never through a redirect: the secret exists in this response only.
        const rotated = await rotateIdentitySecret(deps, ctx.orgId, actor(ctx));
        return settingsPage(ctx, {}, { secret: rotated.identity_secret });
      }),
    )
    .post("/dashboard/settings/identity/clear-previous", ({ request }) =>
      withMember(deps, request, org, async (ctx) => {
        await clearPreviousIdentitySecret(deps, ctx.orgId, actor(ctx));
        return redirect(deps, "/dashboard/settings/identity#identity-h", "The previous secret no longer verifies.");
      }),
    )
    .post("/dashboard/settings/origins", ({ request, body }) => withMember(deps, request, org, (ctx) => setOrigins(ctx, formValues(body))), { body: FormBody })
    .post("/dashboard/settings/llm", ({ request, body }) => withMember(deps, request, org, (ctx) => setModel(ctx, formValues(body))), { body: FormBody })
    .post(
      "/dashboard/settings/grants/:id/revoke",
      ({ request, params }) =>
        withMember(deps, request, org, async (ctx) => {
          await revokeGrantOfOrg(deps, ctx.orgId, ctx.principal.member.id, true, params.id);
          return redirect(deps, "/dashboard/settings#grants-h", "The client's access is revoked.");
        }),
      { params: IdParams },
    )
    .post(
      "/dashboard/settings/members/invite",
      ({ request, body }) =>
        withMember(deps, request, members, (ctx) =>
          invite(ctx, formValues(body), rolesFromForm(formValues(body).invite_preset, formList(body, "invite_roles"))),
        ),
      { body: MemberForm },
    )
    .post(
      "/dashboard/settings/members/:id/roles",
      ({ request, params, body }) =>
        withMember(deps, request, members, (ctx) => changeRoles(ctx, params.id, rolesFromForm(formValues(body).preset, formList(body, "roles")))),
      { params: IdParams, body: MemberForm },
    )
    .post("/dashboard/settings/members/:id/remove", ({ request, params }) => withMember(deps, request, members, (ctx) => remove(ctx, params.id)), {
      params: IdParams,
      body: MemberForm,
    })
    .post("/dashboard/settings/invitations/:id/revoke", ({ request, params }) => withMember(deps, request, members, (ctx) => revoke(ctx, params.id)), {
      params: IdParams,
      body: MemberForm,
    });
}
