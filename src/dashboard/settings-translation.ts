// Dashboard: the org's translator (README "Languages" → "Translation"), under agents:manage as
// /api/translation is: the org's model, a LibreTranslate server or DeepL, or none. The key is
// write-only (stored encrypted, never shown). Through src/translation/settings.ts.
import { Elysia } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { clearTranslation, setTranslation, type TranslationProvider, TRANSLATION_SETTING_LIMITS as L, translationView } from "../translation/settings.ts";
import {
  type DashboardContext,
  type DashboardDeps,
  detailErrors,
  type FieldErrors,
  formBody,
  formValues,
  type FormValues,
  redirect,
  type Refused,
  shellPage,
  submitForm,
  withMember,
} from "./kit/index.ts";
import { TRANSLATOR_LABELS, TranslationPage } from "./views/settings-translation.ts";

const PATH = "/dashboard/settings/translation";
const FormBody = formBody({ text: 4096, items: 1 });

function parseForm(v: FormValues): { input: { provider: TranslationProvider; base_url: string | null; api_key?: string }; errors: FieldErrors } {
  const provider = v.provider as TranslationProvider;
  if (!(provider in TRANSLATOR_LABELS)) return { input: { provider: "model", base_url: null }, errors: { provider: "Choose a translator from the list." } };
  const base = (v.base_url ?? "").trim();
  const key = (v.api_key ?? "").trim();
  return {
    input: { provider, base_url: provider === "model" || base === "" ? null : base, ...(key && provider !== "model" ? { api_key: key } : {}) },
    errors: {},
  };
}

async function translationPage(ctx: DashboardContext, refused?: Refused): Promise<Response> {
  const current = await translationView(ctx.deps, ctx.orgId);
  const body = TranslationPage({
    viewer: ctx,
    path: PATH,
    current,
    limits: { baseUrl: L.baseUrl, apiKey: L.apiKey },
    values: refused?.values ?? {},
    errors: refused?.errors ?? {},
  });
  return shellPage(ctx, { title: "Translation", active: "settings", body, status: refused?.status });
}

export function translationPages(deps: DashboardDeps) {
  const role = "agents:manage" as const;
  return new Elysia({ name: "dashboard-translation" })
    .get(PATH, ({ request }) => withMember(deps, request, role, (ctx) => translationPage(ctx)))
    .post(
      PATH,
      ({ request, body }) =>
        withMember(deps, request, role, (ctx) =>
          submitForm({
            values: { ...formValues(body), api_key: "" },
            validate: () => parseForm(formValues(body)),
            call: (input) => setTranslation(deps, ctx.orgId, memberActor(ctx.principal.member.id), input),
            done: () => redirect(deps, PATH, "Translation saved."),
            render: (refused) => translationPage(ctx, refused),
            refused: (error) => (error.status === 400 ? detailErrors(error, ([first]) => first ?? "provider", "provider") : null),
          }),
        ),
      { body: FormBody },
    )
    .post(
      `${PATH}/clear`,
      ({ request }) =>
        withMember(deps, request, role, async (ctx) => {
          await clearTranslation(deps, ctx.orgId, memberActor(ctx.principal.member.id));
          return redirect(deps, PATH, "Translation stopped.");
        }),
      { body: FormBody },
    );
}
