// Dashboard: the sentences customers read (README "Languages"), under org:manage. Pick a language;
// every sentence of the catalogue is listed with the catalogue's wording as its placeholder and the
// org's own wording, if any, as its value. Saving writes what differs from the catalogue through
// src/texts/store.ts, as PUT /api/texts/{language} does (ICU checked there; the refused key's
// field shows why).
import { Elysia, t } from "elysia";
import { languageName, MESSAGE_KEYS, messageOf } from "../i18n/catalogue.ts";
import { memberActor } from "../kit/actor.ts";
import { CATALOGUE_LANGUAGES } from "../kit/language.ts";
import { languageOverrides, setOverrides, TEXTS_LIMITS } from "../texts/store.ts";
import {
  type DashboardContext,
  type DashboardDeps,
  detailErrors,
  formBody,
  formValues,
  type FormValues,
  redirect,
  type Refused,
  shellPage,
  submitForm,
  withMember,
} from "./kit/index.ts";
import { TextsPage } from "./views/settings-texts.ts";

const PATH = "/dashboard/settings/texts";
const FormBody = formBody({ text: TEXTS_LIMITS.message, items: 1 });
const languageOf = (value: string | undefined) => ((CATALOGUE_LANGUAGES as readonly string[]).includes(value ?? "") ? value! : "en");

async function textsPage(ctx: DashboardContext, language: string, refused?: Refused): Promise<Response> {
  const body = TextsPage({
    viewer: ctx,
    path: PATH,
    language,
    languages: CATALOGUE_LANGUAGES,
    overrides: await languageOverrides(ctx.deps, ctx.orgId, language),
    maxLength: TEXTS_LIMITS.message,
    values: refused?.values ?? {},
    errors: refused?.errors ?? {},
  });
  return shellPage(ctx, { title: "What customers read", active: "settings", body, status: refused?.status });
}

/** The fields as changes: what differs from the stored override; empty, or the catalogue's own wording, removes it. */
function changes(values: FormValues, stored: Record<string, string | undefined>, language: string) {
  const texts: Record<string, string | null> = {};
  for (const key of MESSAGE_KEYS) {
    const value = (values[key] ?? "").trim();
    const own = value === "" || value === messageOf(language, key) ? null : value;
    if (own !== (stored[key] ?? null)) texts[key] = own;
  }
  return { input: texts, errors: {} };
}

export function textsPages(deps: DashboardDeps) {
  const role = "org:manage" as const;
  const query = t.Object({ language: t.Optional(t.String({ maxLength: 3 })) });
  return new Elysia({ name: "dashboard-texts" })
    .get(PATH, ({ request, query }) => withMember(deps, request, role, (ctx) => textsPage(ctx, languageOf(query.language))), { query })
    .post(
      PATH,
      ({ request, body, query }) =>
        withMember(deps, request, role, async (ctx) => {
          const language = languageOf(query.language);
          const stored = await languageOverrides(deps, ctx.orgId, language);
          return submitForm({
            values: formValues(body),
            validate: (values) => changes(values, stored, language),
            call: (texts) => setOverrides(deps, ctx.orgId, memberActor(ctx.principal.member.id), language, texts),
            done: () => redirect(deps, `${PATH}?language=${language}`, `${languageName(language)} sentences saved.`),
            render: (refused) => textsPage(ctx, language, refused),
            refused: (error) => (error.status === 400 ? detailErrors(error, (parts) => parts[1] ?? MESSAGE_KEYS[0]!, MESSAGE_KEYS[0]!) : null),
          });
        }),
      { body: FormBody, query },
    );
}
