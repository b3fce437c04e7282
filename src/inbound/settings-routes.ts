// Dashboard API of the email channel's settings (README "Email channel"):
//   GET/PUT /api/email/settings        the org's support alias (reading: inbox:view; PUT: org:manage)
//   GET/PUT /api/email/notifications   the signed-in member's own choice of email when a customer
//                                      writes: `full`, `notify_only` (no customer text) or `off`
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { NOTIFY_MODES, notifyMode, setNotifyMode } from "../inbox/member-notices.ts";
import { memberActor } from "../kit/actor.ts";
import { mailSettings, setSupportAlias } from "./alias.ts";

const tags = ["Email"];

export function emailSettingsRoutes(deps: Deps) {
  return new Elysia({ name: "email-settings" })
    .get(
      "/api/email/settings",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "inbox:view");
        return mailSettings(deps, orgId);
      },
      { detail: { summary: "The org's email settings: its support alias and the address it makes", tags } },
    )
    .put(
      "/api/email/settings",
      async ({ body, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "org:manage");
        return setSupportAlias(deps, orgId, memberActor(principal.member.id), body.support_alias);
      },
      {
        body: t.Object({ support_alias: t.Union([t.String({ minLength: 1, maxLength: 64 }), t.Null()]) }, { additionalProperties: false }),
        detail: { summary: "Set the org's support alias (<alias>@INBOUND_EMAIL_DOMAIN opens tickets); null removes it. 409 alias_taken", tags },
      },
    )
    .get(
      "/api/email/notifications",
      async ({ request }) => {
        const { orgId, principal } = await requireMember(deps, request, "inbox:view");
        return { mode: await notifyMode(deps, orgId, principal.member.id) };
      },
      { detail: { summary: "Your email when a customer writes on a ticket assigned to you (or, unassigned, to the inbox)", tags } },
    )
    .put(
      "/api/email/notifications",
      async ({ body, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "inbox:view");
        return { mode: await setNotifyMode(deps, orgId, principal.member.id, body.mode) };
      },
      {
        body: t.Object({ mode: t.Union(NOTIFY_MODES.map((m) => t.Literal(m))) }, { additionalProperties: false }),
        detail: { summary: "Choose full (the customer's text), notify_only (a link, never the text) or off", tags },
      },
    );
}
