// The org's translator: /api/translation (README "Languages" → "Translation"). Read with
// agents:view, changed with agents:manage — the roles of the org's model settings (/api/llm),
// since a translator is another provider the org pays for. The key is never returned.
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { memberActor } from "../kit/actor.ts";
import { clearTranslation, setTranslation, TRANSLATION_SETTING_LIMITS as L, translationView } from "./settings.ts";

const Provider = t.Union([t.Literal("model"), t.Literal("libretranslate"), t.Literal("deepl")]);
const Settings = t.Object(
  {
    provider: Provider,
    base_url: t.Optional(t.Union([t.String({ minLength: 1, maxLength: L.baseUrl }), t.Null()])),
    api_key: t.Optional(t.Union([t.String({ minLength: 1, maxLength: L.apiKey }), t.Null()])),
  },
  { additionalProperties: false },
);
const View = t.Object({
  provider: t.Union([Provider, t.Null()]),
  base_url: t.Union([t.String(), t.Null()]),
  api_key_set: t.Boolean(),
});
const tags = ["Translation"];
const security = [{ dashboard: [] }];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody };

export function translationRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "now">) {
  return new Elysia({ name: "translation" })
    .get(
      "/api/translation",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "agents:view");
        return translationView(deps, orgId);
      },
      { response: { 200: View, ...errors }, detail: { summary: "The org's translator for the inbox; provider null: none (agents:view)", tags, security } },
    )
    .put(
      "/api/translation",
      async ({ body, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "agents:manage");
        return setTranslation(deps, orgId, memberActor(principal.member.id), body);
      },
      {
        body: Settings,
        response: { 200: View, ...errors },
        detail: {
          summary: "Choose the translator: the org's model, a LibreTranslate server or DeepL; the key is encrypted and never returned (agents:manage)",
          tags,
          security,
        },
      },
    )
    .delete(
      "/api/translation",
      async ({ request }) => {
        const { orgId, principal } = await requireMember(deps, request, "agents:manage");
        return clearTranslation(deps, orgId, memberActor(principal.member.id));
      },
      { response: { 200: View, ...errors }, detail: { summary: "No translator: customer messages are shown as written (agents:manage)", tags, security } },
    );
}
