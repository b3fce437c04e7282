// The widget's sentences (README "Languages"): English from the catalogue (src/i18n/en.ts) until
// GET /api/sdk/config answers, then its `texts` — the customer's language with the org's
// overrides — formatted with the same ICU library as the server's (intl-messageformat), so plurals
// and numbers follow the customer's language.
import IntlMessageFormat from "intl-messageformat";
import { en } from "../../i18n/en.ts";

export type WidgetKey = Extract<keyof typeof en, `widget.${string}`>;
export type Say = (key: WidgetKey, params?: Record<string, string | number>) => string;

export interface Texts {
  /** The language the widget speaks (ISO 639-1). */
  language: string;
  /** Takes the config's language and texts (unknown keys and non-strings are ignored). */
  set(language: unknown, texts: unknown): void;
  t: Say;
}

export function createTexts(): Texts {
  let messages: Record<string, string> = {};
  const self: Texts = {
    language: "en",
    set(language, texts) {
      if (typeof language === "string" && /^[a-z]{2,3}$/.test(language)) self.language = language;
      if (texts && typeof texts === "object")
        messages = Object.fromEntries(
          Object.entries(texts as Record<string, unknown>).filter(([k, v]) => Object.hasOwn(en, k) && typeof v === "string"),
        ) as Record<string, string>;
    },
    t(key, params = {}) {
      for (const [message, language] of [
        [messages[key], self.language],
        [en[key], "en"],
      ] as const) {
        if (message === undefined) continue;
        try {
          return String(new IntlMessageFormat(message, language, undefined, { ignoreTag: true }).format(params));
        } catch {
          // a message that does not format: English
        }
      }
      return en[key];
    },
  };
  return self;
}
