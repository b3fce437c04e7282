// The widget's words in the customer's language (README "Languages"): every label, placeholder,
// button, aria-label and announcement is a `widget.*` sentence of the catalogue (src/i18n/), as
// GET /api/sdk/config serves it in `texts` (the org's overrides applied), formatted here as ICU
// message format by `intl-messageformat` — the same library the service formats with, so plurals
// and numbers follow the language's rules through Intl. Until the config has arrived, and for any
// key it lacks, the English catalogue is used. A part that writes a sentence once binds it
// (`bind`), and is written again when the language changes (identify() with another locale).
import IntlMessageFormat from "intl-messageformat";
import { en } from "../../i18n/en.ts";

/** The languages with a catalogue (src/kit/language.ts CATALOGUE_LANGUAGES, checked equal by test/widget/texts.test.ts). */
export const CATALOGUED = ["en", "es", "de", "fr", "pt", "it", "nl", "ja", "zh", "ar"] as const;

export type WidgetKey = Extract<keyof typeof en, `widget.${string}`>;
export type Params = Record<string, string | number>;

export interface Texts {
  /** The language the widget speaks (ISO 639-1, the config's `language`). */
  language: string;
  dir: "ltr" | "rtl";
  /** One sentence, formatted. */
  t(key: WidgetKey, params?: Params): string;
  /** Runs `write` now and again whenever the language changes. */
  bind(write: () => void): void;
  /** Takes the config's language, direction and texts, and writes every bound sentence again. */
  set(language: string, dir: "ltr" | "rtl", messages: Record<string, unknown>): void;
}

/** The locale the widget asks for: identify()'s, else the snippet's, else the browser's first language with a catalogue. */
export function requestedLocale(
  explicit: (string | null | undefined)[],
  browser: readonly string[],
  catalogued: readonly string[] = CATALOGUED,
): string | null {
  for (const tag of explicit) if (typeof tag === "string" && tag.trim()) return tag.trim().slice(0, 35);
  // A browser language without a catalogue would be answered in English: the org's default serves better.
  for (const tag of browser) if (catalogued.includes(tag.toLowerCase().split(/[-_]/)[0] ?? "")) return tag.slice(0, 35);
  return null;
}

/**
 * A person's name as the customer sees it: the service names a member without a display name (and
 * its own replies) with the English catalogue's "Support team" (src/inbox/ticket-events.ts
 * TEAM_NAME); the widget says that in its own language.
 */
export function personName(texts: Texts, name: string | null | undefined): string {
  return !name || name === en["widget.support_team"] ? texts.t("widget.support_team") : name;
}

export function createTexts(): Texts {
  let messages: Record<string, string> = {};
  const bound: (() => void)[] = [];
  const cache = new Map<string, IntlMessageFormat>();
  const format = (language: string, message: string, params: Params) => {
    let f = cache.get(message);
    if (!f) {
      f = new IntlMessageFormat(message, language, undefined, { ignoreTag: true });
      cache.set(message, f);
    }
    return String(f.format(params));
  };
  const texts: Texts = {
    language: "en",
    dir: "ltr",
    t(key, params = {}) {
      // An override that does not format falls back to the catalogue's English: the customer always gets a sentence.
      for (const [language, message] of [
        [texts.language, messages[key]],
        ["en", en[key]],
      ] as const) {
        if (typeof message !== "string") continue;
        try {
          return format(language, message, params);
        } catch {}
      }
      return en[key];
    },
    bind(write) {
      bound.push(write);
      write();
    },
    set(language, dir, next) {
      texts.language = language;
      texts.dir = dir;
      messages = Object.fromEntries(Object.entries(next).filter((e): e is [string, string] => typeof e[1] === "string"));
      cache.clear();
      for (const write of bound) write();
    },
  };
  return texts;
}
