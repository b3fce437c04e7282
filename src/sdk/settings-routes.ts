// Dashboard API of the widget settings (role org:manage): /api/widget/identity,
// /api/widget/keys and /api/widget/origins, over src/orgs/widget-access.ts and src/sdk/settings.ts.
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import {
  clearPreviousIdentitySecret,
  createWidgetKey,
  identityView,
  listWidgetKeys,
  revokeWidgetKey,
  rotateIdentitySecret,
  setIdentityVerification,
  WIDGET_KEY_LIMITS,
} from "../orgs/widget-access.ts";
import { Handoff, IdentityView, Origins, RotatedIdentity, WidgetKey } from "./settings-schemas.ts";
import { allowedOrigins, handoffSetting, ORIGIN_LIMITS, setAllowedOrigins, setHandoffSetting } from "./settings.ts";

const tags = ["Widget settings"];

export function widgetSettingsRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "invalidation" | "now">) {
  const admin = async (request: Request) => {
    const { orgId, principal } = await requireMember(deps, request, "org:manage");
    return { orgId, actor: memberActor(principal.member.id) };
  };
  return new Elysia({ name: "widget-settings" })
    .get("/api/widget/identity", async ({ request }) => identityView(deps, (await admin(request)).orgId), {
      response: { 200: IdentityView },
      detail: { summary: "Identity verification setting", tags },
    })
    .put(
      "/api/widget/identity",
      async ({ body, request }) => {
        const { orgId, actor } = await admin(request);
        return setIdentityVerification(deps, orgId, actor, body.enabled);
      },
      {
        body: t.Object({ enabled: t.Boolean() }, { additionalProperties: false }),
        response: { 200: IdentityView },
        detail: { summary: "Switch identity verification on or off", tags },
      },
    )
    .post(
      "/api/widget/identity/rotate",
      async ({ request }) => {
        const { orgId, actor } = await admin(request);
        return rotateIdentitySecret(deps, orgId, actor);
      },
      {
        response: { 200: RotatedIdentity },
        detail: { summary: "Rotate the identity secret (the new secret is shown once; the old one verifies for 24 hours, or until cleared)", tags },
      },
    )
    .delete(
      "/api/widget/identity/previous",
      async ({ request }) => {
        const { orgId, actor } = await admin(request);
        return clearPreviousIdentitySecret(deps, orgId, actor);
      },
      { response: { 200: IdentityView }, detail: { summary: "Stop accepting the previous identity secret", tags } },
    )
    .get("/api/widget/keys", async ({ request }) => ({ keys: await listWidgetKeys(deps, (await admin(request)).orgId) }), {
      response: { 200: t.Object({ keys: t.Array(WidgetKey) }) },
      detail: { summary: "Widget keys", tags },
    })
    .post(
      "/api/widget/keys",
      async ({ body, request, set }) => {
        const { orgId, actor } = await admin(request);
        set.status = 201;
        return createWidgetKey(deps, orgId, actor, body.label ?? "default");
      },
      {
        body: t.Object({ label: t.Optional(t.String({ minLength: 1, maxLength: WIDGET_KEY_LIMITS.label })) }, { additionalProperties: false }),
        response: { 200: WidgetKey },
        detail: { summary: "Create a widget key", tags },
      },
    )
    .delete(
      "/api/widget/keys/:key_id",
      async ({ params, request }) => {
        const { orgId, actor } = await admin(request);
        return revokeWidgetKey(deps, orgId, actor, params.key_id);
      },
      { params: t.Object({ key_id: t.String({ maxLength: 64 }) }), response: { 200: WidgetKey }, detail: { summary: "Revoke a widget key", tags } },
    )
    .get("/api/widget/handoff", async ({ request }) => handoffSetting(deps, (await admin(request)).orgId), {
      response: { 200: Handoff },
      detail: { summary: "Whether the AI keeps answering while a person owns a conversation", tags },
    })
    .put(
      "/api/widget/handoff",
      async ({ body, request }) => {
        const { orgId, actor } = await admin(request);
        return setHandoffSetting(deps, orgId, actor, body.ai_answers_during_handoff);
      },
      {
        body: t.Object({ ai_answers_during_handoff: t.Boolean() }, { additionalProperties: false }),
        response: { 200: Handoff },
        detail: { summary: "Choose whether the AI keeps answering while a person owns a conversation (default: it stays quiet)", tags },
      },
    )
    .get("/api/widget/origins", async ({ request }) => allowedOrigins(deps, (await admin(request)).orgId), {
      response: { 200: Origins },
      detail: { summary: "Allowed browser origins", tags },
    })
    .put(
      "/api/widget/origins",
      async ({ body, request }) => {
        const { orgId, actor } = await admin(request);
        return setAllowedOrigins(deps, orgId, actor, body.allowed_origins);
      },
      {
        body: t.Object(
          { allowed_origins: t.Array(t.String({ minLength: 1, maxLength: 2048 }), { maxItems: ORIGIN_LIMITS.origins }) },
          { additionalProperties: false },
        ),
        response: { 200: Origins },
        detail: { summary: "Replace the allowed browser origins (empty: any origin)", tags },
      },
    );
}
