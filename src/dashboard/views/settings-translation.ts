// The translation page: which translator the org uses now (its model, a LibreTranslate server or
// DeepL, or none), the form choosing one (the key write-only: never shown), and the button to stop.
import { html } from "../../html/html.ts";
import type { TranslationProvider } from "../../translation/settings.ts";
import { actionButton, type FieldErrors, field, type FormValues, select, submit } from "../kit/fields.ts";
import type { Viewer } from "../shell.ts";
import { SettingsSection } from "./settings-section.ts";

export const TRANSLATOR_LABELS: Record<TranslationProvider, string> = {
  model: "The organisation's model (Settings → Model)",
  libretranslate: "A LibreTranslate server",
  deepl: "DeepL",
};

export interface TranslationProps {
  viewer: Pick<Viewer, "can">;
  path: string;
  current: { provider: TranslationProvider | null; base_url: string | null; api_key_set: boolean };
  limits: { baseUrl: number; apiKey: number };
  values: FormValues;
  errors: FieldErrors;
}

const ABOUT =
  "When a customer writes in another language than the one a member reads (their account page), the ticket shows the message translated, " +
  "and the member's reply can be sent in the customer's language. Texts go to the translator chosen here.";

export function TranslationPage(p: TranslationProps) {
  const { current: view, values: v, errors: e } = p;
  const now = view.provider
    ? html`<p>Translating with <strong>${TRANSLATOR_LABELS[view.provider]}</strong>${view.base_url ? html` at <code>${view.base_url}</code>` : ""}.</p>`
    : html`<p>No translator is chosen: customer messages in another language are shown as written, and replies cannot be sent translated.</p>`;
  const providers = (Object.keys(TRANSLATOR_LABELS) as TranslationProvider[]).map((value) => ({ value, label: TRANSLATOR_LABELS[value] }));
  const stop = view.provider
    ? actionButton(`${p.path}/clear`, "Stop translating", { kind: "danger", confirm: "Stop translating customer messages and replies?" })
    : "";
  const content = html`${now}
<p class="muted">${ABOUT}</p>
<form method="post" action="${p.path}" novalidate>
${select({ name: "provider", label: "Translator", value: v.provider ?? view.provider ?? "model", error: e.provider, options: providers })}
${field({
  name: "base_url",
  label: "Server URL",
  type: "url",
  value: v.base_url ?? view.base_url ?? "",
  error: e.base_url,
  maxLength: p.limits.baseUrl,
  placeholder: "https://",
  hint:
    "LibreTranslate: the server's address (required). DeepL: leave empty for api.deepl.com (api-free.deepl.com for a key ending in :fx). " +
    "Not used with the model.",
})}
${field({
  name: "api_key",
  label: "API key",
  type: "password",
  value: "",
  error: e.api_key,
  maxLength: p.limits.apiKey,
  hint: view.api_key_set ? "A key is stored (never shown). Leave blank to keep it." : "Write-only: stored encrypted, never shown again. Required for DeepL.",
})}
<div class="actions">${submit("Save translation")}</div>
</form>
${stop}`;
  return SettingsSection({ viewer: p.viewer, current: "translation", id: "translation-h", title: "Translation", errors: e, content });
}
