// The help centre's own chrome (not the articles) in the page's language: the catalogue's `help.*`
// sentences (src/i18n/), the org's overrides of them applied (src/texts/), and its dates said the
// way that language says them, through Intl.
import type { MessageKey, Overrides, Params } from "../i18n/catalogue.ts";
import { textsOf } from "../texts/store.ts";

export interface HelpTexts {
  t(key: Extract<MessageKey, `help.${string}`>, params?: Params): string;
  /** A day as the page's language writes it ("7 de diciembre de 2026"). */
  date(d: Date): string;
}

/** The sentences of a page in `lang`, with the org's overrides by language (Site.overrides). */
export function helpTexts(lang: string, overrides: Readonly<Record<string, Overrides>> = {}): HelpTexts {
  const texts = textsOf(lang, overrides[lang] ?? {});
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat(lang, { dateStyle: "long", timeZone: "UTC" });
  } catch {
    // A language segment Intl does not know (a three-letter code of the org's): English dates.
    format = new Intl.DateTimeFormat("en", { dateStyle: "long", timeZone: "UTC" });
  }
  return { t: (key, params) => texts.t(key, params), date: (d) => format.format(d) };
}
