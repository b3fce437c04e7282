// Dashboard: the org's translator (README "Languages" → "Translation"), under agents:manage as
// /api/translation is: the org's model, a LibreTranslate server or DeepL, or none. The key is
// write-only (stored encrypted, never shown). Through src/translation/settings.ts.
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { html } from "../html/html.ts";
import { memberActor } from "../kit/actor.ts";
import { clearTranslation, setTranslation, type TranslationProvider, TRANSLATION_SETTING_LIMITS as L, translationView } from "../translation/settings.ts";
import {
  actionButton,
  type DashboardContext,
  detailErrors,
  errorSummary,
  field,
  type FieldErrors,
  formBody,
  formValues,
  type FormValues,
  redirect,
  type Refused,
  select,
  shellPage,
  submit,
  submitForm,
  withMember,
} from "./kit/index.ts";
import { settingsNav } from "./settings-nav.ts";

const PATH = "/dashboard/settings/translation";
const FormBody = formBody({ text: 4096, items: 1 });
const LABELS: Record<TranslationProvider, string> = {
  model: "The organisation's model (Settings → Model)",
  libretranslate: "A LibreTranslate server",
  deepl: "DeepL",
};

function parseForm(v: FormValues): { input: { provider: TranslationProvider; base_url: string | null; api_key?: string }; errors: FieldErrors } {
  const provider = v.provider as TranslationProvider;
  if (!(provider in LABELS)) return { input: { provider: "model", base_url: null }, errors: { provider: "Choose a translator from the list." } };
  const base = (v.base_url ?? "").trim();
  const key = (v.api_key ?? "").trim();
  return {
    input: { provider, base_url: provider === "model" || base === "" ? null : base, ...(key && provider !== "model" ? { api_key: key } : {}) },
    errors: {},
  };
}

async function translationPage(ctx: DashboardContext, refused?: Refused): Promise<Response> {
  const view = await translationView(ctx.deps, ctx.orgId);
  const v = refused?.values ?? {};
  const e = refused?.errors ?? {};
  const now = view.provider
    ? html`<p>Translating with <strong>${LABELS[view.provider]}</strong>${view.base_url ? html` at <code>${view.base_url}</code>` : ""}.</p>`
    : html`<p>No translator is chosen: customer messages in another language are shown as written, and replies cannot be sent translated.</p>`;
  const body = html`${errorSummary(e)}<h1>Settings</h1>
${settingsNav(ctx, "translation")}
<section class="panel" aria-labelledby="translation-h"><h2 id="translation-h">Translation</h2>
${now}
<p class="muted">When a customer writes in another language than the one a member reads (their account page), the ticket shows the message translated, and the member's reply can be sent in the customer's language. Texts go to the translator chosen here.</p>
<form method="post" action="${PATH}" novalidate>
${select({ name: "provider", label: "Translator", value: v.provider ?? view.provider ?? "model", error: e.provider, options: (Object.keys(LABELS) as TranslationProvider[]).map((p) => ({ value: p, label: LABELS[p] })) })}
${field({ name: "base_url", label: "Server URL", type: "url", value: v.base_url ?? view.base_url ?? "", error: e.base_url, maxLength: L.baseUrl, placeholder: "https://", hint: "LibreTranslate: the server's address (required). DeepL: leave empty for api.deepl.com (api-free.deepl.com for a key ending in :fx). Not used with the model." })}
${field({ name: "api_key", label: "API key", type: "password", value: "", error: e.api_key, maxLength: L.apiKey, hint: view.api_key_set ? "A key is stored (never shown). Leave blank to keep it." : "Write-only: stored encrypted, never shown again. Required for DeepL." })}
<div class="actions">${submit("Save translation")}</div>
</form>
${view.provider ? actionButton(`${PATH}/clear`, "Stop translating", { kind: "danger", confirm: "Stop translating customer messages and replies?" }) : ""}
</section>`;
  return shellPage(ctx, { title: "Translation", active: "settings", body, status: refused?.status });
}

export function translationPages(deps: Deps) {
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
