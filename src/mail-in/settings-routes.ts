// Dashboard API of the email channel's settings (README "Email channel"):
//   GET/PUT /api/email/settings        the org's support alias (reading: inbox:view; PUT: org:manage)
//   GET/PUT /api/email/notifications   the signed-in member's own choice of email when a customer
//                                      writes: `full`, `notify_only` (no customer text) or `off`
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { notifyMode, setNotifyMode } from "../inbox/member-notices.ts";
import { memberActor } from "../kit/actor.ts";
import { mailSettings, setSupportAlias } from "./alias.ts";

const tags = ["Email"];
/** mailSettings: the org's alias and what it makes. */
const MailSettings = t.Object({
  support_alias: t.Union([t.String(), t.Null()], { description: "The local part of the org's support address; null when none is set." }),
  support_address: t.Union([t.String(), t.Null()], {
    description: "<alias>@INBOUND_EMAIL_DOMAIN; null until both the alias and INBOUND_EMAIL_DOMAIN are set.",
  }),
  inbound_enabled: t.Boolean({
    description: "Whether this server receives email: INBOUND_EMAIL_DOMAIN is set, and the SMTP listener or the relay webhook is on.",
  }),
});
/** NOTIFY_MODES spelt out: a mode added there and not here fails the type check of the answers. */
const Mode = t.Union([t.Literal("full"), t.Literal("notify_only"), t.Literal("off")], {
  description: "full: the customer's text; notify_only: a link, never the text; off: no email.",
});
const Notifications = t.Object({ mode: Mode });
/** The refusals every route here may answer, in the one error shape. */
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody };

export function emailSettingsRoutes(deps: Pick<Deps, "config" | "db" | "now">) {
  return new Elysia({ name: "email-settings" })
    .get(
      "/api/email/settings",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "inbox:view");
        return mailSettings(deps, orgId);
      },
      { response: { 200: MailSettings, ...errors }, detail: { summary: "The org's email settings: its support alias and the address it makes", tags } },
    )
    .put(
      "/api/email/settings",
      async ({ body, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "org:manage");
        return setSupportAlias(deps, orgId, memberActor(principal.member.id), body.support_alias);
      },
      {
        body: t.Object({ support_alias: t.Union([t.String({ minLength: 1, maxLength: 64 }), t.Null()]) }, { additionalProperties: false }),
        response: { 200: MailSettings, ...errors, 409: ErrorBody },
        detail: { summary: "Set the org's support alias (<alias>@INBOUND_EMAIL_DOMAIN opens tickets); null removes it. 409 alias_taken", tags },
      },
    )
    .get(
      "/api/email/notifications",
      async ({ request }) => {
        const { orgId, principal } = await requireMember(deps, request, "inbox:view");
        return { mode: await notifyMode(deps, orgId, principal.member.id) };
      },
      {
        response: { 200: Notifications, ...errors },
        detail: { summary: "Your email when a customer writes on a ticket assigned to you (or, unassigned, to the inbox)", tags },
      },
    )
    .put(
      "/api/email/notifications",
      async ({ body, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "inbox:view");
        return { mode: await setNotifyMode(deps, orgId, principal.member.id, body.mode) };
      },
      {
        body: t.Object({ mode: Mode }, { additionalProperties: false }),
        response: { 200: Notifications, ...errors },
        detail: { summary: "Choose full (the customer's text), notify_only (a link, never the text) or off", tags },
      },
    );
}
