// The page of the sentences customers read, in one language: the language picker, then every
// sentence of the catalogue with the catalogue's wording as its placeholder and the org's own
// wording, if any, as its value.
import { html } from "../../html/html.ts";
import { CATALOGUES, languageName, MESSAGE_KEYS, type MessageKey, messageOf, placeholders } from "../../i18n/catalogue.ts";
import { type FieldErrors, type FormValues, select, submit, textarea } from "../kit/fields.ts";
import type { Viewer } from "../shell.ts";
import { SettingsSection } from "./settings-section.ts";

export interface TextsProps {
  viewer: Pick<Viewer, "can">;
  path: string;
  language: string;
  /** The languages the picker offers. */
  languages: readonly string[];
  /** The org's own wording in `language`, by key. */
  overrides: Record<string, string | undefined>;
  maxLength: number;
  values: FormValues;
  errors: FieldErrors;
}

const ABOUT =
  "Every sentence the assistant, the widget and the emails say to customers, in each language. Leave a field empty to use the wording shown in it. " +
  "Words in braces, like {number}, are filled in; a sentence may use only its own.";

function sentence(p: TextsProps, key: MessageKey) {
  const own = placeholders(CATALOGUES.en![key]);
  return textarea({
    name: key,
    label: key,
    value: p.values[key] ?? p.overrides[key] ?? "",
    error: p.errors[key],
    rows: 2,
    maxLength: p.maxLength,
    placeholder: messageOf(p.language, key),
    hint: own.length > 0 ? `May use ${own.map((x) => `{${x}}`).join(", ")}.` : undefined,
  });
}

export function TextsPage(p: TextsProps) {
  const languages = p.languages.map((code) => ({ value: code, label: languageName(code) }));
  const content = html`<p class="muted">${ABOUT}</p>
<form method="get" action="${p.path}" class="toolbar">
${select({ name: "language", label: "Language", value: p.language, options: languages })}
<button type="submit" class="secondary">Show</button>
</form>
<form method="post" action="${p.path}?language=${p.language}" novalidate lang="${p.language}">
${MESSAGE_KEYS.map((key) => sentence(p, key))}
<div class="actions">${submit(`Save the ${languageName(p.language)} sentences`)}</div>
</form>`;
  return SettingsSection({ viewer: p.viewer, current: "texts", id: "texts-h", title: "What customers read", errors: p.errors, content });
}
