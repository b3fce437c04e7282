// What the widget settings API answers (src/sdk/settings-routes.ts), as TypeBox schemas: Elysia
// checks each answer against them, and the OpenAPI document shows them.
import { t } from "elysia";

export const IdentityView = t.Object({
  enabled: t.Boolean(),
  has_previous_secret: t.Boolean({ description: "Whether the secret before the last rotation still verifies." }),
  previous_secret_expires_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
});

export const RotatedIdentity = t.Composite([
  IdentityView,
  t.Object({ identity_secret: t.String({ description: "The new secret, shown only in this answer." }) }),
]);

export const WidgetKey = t.Object({
  id: t.String(),
  key: t.String({ description: "ab_live_…: publishable, shown in the install snippet." }),
  label: t.String(),
  created_at: t.String({ format: "date-time" }),
  revoked_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
});

export const Handoff = t.Object({ ai_answers_during_handoff: t.Boolean() });
export const Origins = t.Object({ allowed_origins: t.Array(t.String()) });
