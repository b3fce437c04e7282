// The org's wording of the catalogue's sentences (README "Languages"): GET /api/texts/{language}
// lists every key with the catalogue's message and the org's override; PUT sets or removes
// overrides (org:manage, as the other widget and CSAT settings). A message is ICU message format,
// checked on save: a key that is not in the catalogue, a message that does not parse or one using
// a placeholder the sentence does not have is a 400 naming the key (`/texts/<key>`).
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { CATALOGUES, MESSAGE_KEYS, messageOf, placeholders } from "../i18n/catalogue.ts";
import { memberActor } from "../kit/actor.ts";
import { languageOverrides, languageParam, setOverrides, TEXTS_LIMITS } from "./store.ts";

const Sentence = t.Object({
  key: t.String(),
  catalogue: t.String({ description: "The catalogue's message in this language (English where there is no catalogue for it)." }),
  override: t.Union([t.String(), t.Null()], { description: "The organisation's own message, or null." }),
  placeholders: t.Array(t.String(), { description: "The `{placeholders}` the sentence may use." }),
});
const LanguageTexts = t.Object({
  language: t.String({ description: "ISO 639-1." }),
  has_catalogue: t.Boolean({ description: "Whether the service ships a catalogue in this language." }),
  texts: t.Array(Sentence),
});
const params = t.Object({ language: t.String({ maxLength: 35, description: "A language tag (`es`, `pt-BR`); its primary language is used." }) });
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody };

export async function languageTexts(deps: Pick<Deps, "db">, orgId: string, language: string) {
  const overrides = await languageOverrides(deps, orgId, language);
  const hasCatalogue = Object.hasOwn(CATALOGUES, language);
  return {
    language,
    has_catalogue: hasCatalogue,
    texts: MESSAGE_KEYS.map((key) => ({
      key,
      catalogue: messageOf(language, key),
      override: overrides[key] ?? null,
      placeholders: placeholders(CATALOGUES.en![key]),
    })),
  };
}

export function textsRoutes(deps: Pick<Deps, "config" | "db" | "invalidation" | "now">) {
  return new Elysia({ name: "texts" })
    .get(
      "/api/texts/:language",
      async ({ request, params }) => {
        const { orgId } = await requireMember(deps, request, "agents:view");
        return languageTexts(deps, orgId, languageParam(params.language));
      },
      {
        params,
        response: { 200: LanguageTexts, ...errors },
        detail: { tags: ["Languages"], summary: "Every sentence said to customers in one language: the catalogue's and the organisation's own" },
      },
    )
    .put(
      "/api/texts/:language",
      async ({ request, params, body }) => {
        const { orgId, principal } = await requireMember(deps, request, "org:manage");
        const language = languageParam(params.language);
        await setOverrides(deps, orgId, memberActor(principal.member.id), language, body.texts);
        return languageTexts(deps, orgId, language);
      },
      {
        params,
        body: t.Object({
          texts: t.Record(t.String({ maxLength: 100 }), t.Union([t.String({ maxLength: TEXTS_LIMITS.message }), t.Null()]), {
            maxProperties: TEXTS_LIMITS.keysPerRequest,
            description: `Key → the organisation's message in ICU message format (at most ${TEXTS_LIMITS.message} characters), or null or "" to say the catalogue's again. At most ${TEXTS_LIMITS.keysPerRequest} keys per request, ${TEXTS_LIMITS.perOrg} overrides per organisation.`,
          }),
        }),
        response: { 200: LanguageTexts, ...errors },
        detail: { tags: ["Languages"], summary: "Override sentences said to customers in one language (400 naming the key when a message is not valid)" },
      },
    );
}
