// The catalogue of customer-facing sentences (README "Languages"): one module per language, each
// holding every key of the English one, formatted as ICU message format by `intl-messageformat`
// (formatjs, BSD-3-Clause), so plurals, numbers and dates go through Intl in the customer's
// language. An org's override of a sentence (src/texts/) is an ICU message too, checked with
// `messageProblem` before it is stored. A language without a catalogue is answered in English.
import IntlMessageFormat from "intl-messageformat";
import { ar } from "./ar.ts";
import { de } from "./de.ts";
import { en, type MessageKey, type Messages } from "./en.ts";
import { es } from "./es.ts";
import { fr } from "./fr.ts";
import { it } from "./it.ts";
import { ja } from "./ja.ts";
import { nl } from "./nl.ts";
import { pt } from "./pt.ts";
import { zh } from "./zh.ts";

export type { MessageKey, Messages } from "./en.ts";

/** Every catalogue, by ISO 639-1 code (src/kit/language.ts CATALOGUE_LANGUAGES lists the same). */
export const CATALOGUES: Readonly<Record<string, Messages>> = { en, es, de, fr, pt, it, nl, ja, zh, ar };

export const MESSAGE_KEYS = Object.keys(en) as MessageKey[];

/** The keys the widget shows (GET /api/sdk/config `texts`). */
export const WIDGET_KEYS = MESSAGE_KEYS.filter((k) => k.startsWith("widget."));

export const isMessageKey = (key: string): key is MessageKey => Object.hasOwn(en, key);

/** An org's own wording of some sentences in one language (src/texts/). */
export type Overrides = Partial<Record<MessageKey, string>>;

export type Params = Record<string, string | number | Date>;

/** Named formats a message may use: `{until, date, utc}` is a date and time said in UTC. */
const FORMATS = {
  date: { utc: { dateStyle: "long", timeStyle: "short", timeZone: "UTC" } },
} as const;

/** `ignoreTag`: "<" is text, never markup (the pages and emails escape what they put in HTML). */
const OPTIONS = { ignoreTag: true } as const;

/** Compiled messages by language and text. Bounded: overrides are many orgs' texts, not ours. */
const compiled = new Map<string, IntlMessageFormat>();
const COMPILED_MAX = 5000;

function compile(language: string, message: string): IntlMessageFormat {
  const id = `${language}\u0000${message}`;
  let format = compiled.get(id);
  if (!format) {
    format = new IntlMessageFormat(message, language, FORMATS, OPTIONS);
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(id, format);
  }
  return format;
}

/** The catalogue language for a language code: itself when there is a catalogue, else English. */
export function catalogueLanguage(language: string | null | undefined): string {
  const primary = (language ?? "").toLowerCase().split(/[-_]/)[0] ?? "";
  return Object.hasOwn(CATALOGUES, primary) ? primary : "en";
}

/** The message (not formatted) for a key in a language, the org's override first. */
export function messageOf(language: string | null | undefined, key: MessageKey, overrides?: Overrides): string {
  return overrides?.[key] ?? CATALOGUES[catalogueLanguage(language)]![key];
}

/**
 * One sentence in the customer's language: the org's override of it when there is one, else the
 * catalogue's. A message that cannot be formatted (an override checked under an older catalogue)
 * falls back to the catalogue's, then to English: the customer always gets a sentence.
 */
export function t(language: string | null | undefined, key: MessageKey, params: Params = {}, overrides?: Overrides): string {
  const lang = catalogueLanguage(language);
  const candidates = [overrides?.[key], CATALOGUES[lang]![key], en[key]];
  for (const message of candidates) {
    if (message === undefined) continue;
    try {
      return String(compile(lang, message).format(params));
    } catch {
      // the next candidate
    }
  }
  return en[key];
}

type Element = { type: number; value?: unknown; options?: Record<string, { value: Element[] }> };

/** The argument names a message uses, sorted (plural, select, number and date arguments included). */
export function placeholders(message: string): string[] {
  const names = new Set<string>();
  const walk = (elements: Element[]) => {
    for (const el of elements) {
      // 0 literal, 7 "#" in a plural: no argument of their own (@formatjs/icu-messageformat-parser TYPE).
      if (el.type !== 0 && el.type !== 7 && typeof el.value === "string") names.add(el.value);
      for (const option of Object.values(el.options ?? {})) walk(option.value);
    }
  };
  walk(new IntlMessageFormat(message, "en", FORMATS, OPTIONS).getAst() as unknown as Element[]);
  return [...names].sort();
}

/**
 * What is wrong with `message` as the text of `key` (null when nothing): it must parse as ICU
 * message format and use the placeholders the English sentence uses, no other (it may leave some out).
 */
export function messageProblem(key: MessageKey, message: string): string | null {
  let used: string[];
  try {
    used = placeholders(message);
  } catch (error) {
    return `is not a valid ICU message: ${error instanceof Error ? error.message : String(error)}`;
  }
  const known = new Set(placeholders(en[key]));
  const unknown = used.filter((p) => !known.has(p));
  if (unknown.length > 0)
    return (
      `uses ${unknown.map((p) => `{${p}}`).join(", ")}, which this sentence ` + `does not have (it has ${[...known].map((p) => `{${p}}`).join(", ") || "none"})`
    );
  return null;
}

/**
 * A setting whose stored default is a catalogue sentence in English (an agent's live-help label, the
 * CSAT question): the catalogue's sentence in `language` while it is still that default, else the
 * org's own words, which are said as written.
 */
export function ownOrCatalogue(value: string | null | undefined, key: MessageKey, language: string | null | undefined, overrides?: Overrides): string {
  return !value || value === en[key] ? t(language, key, {}, overrides) : value;
}

/** The widget's sentences in a language, the org's overrides applied (messages, not formatted: the widget formats them). */
export function widgetTexts(language: string, overrides?: Overrides): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of WIDGET_KEYS) out[key] = messageOf(language, key, overrides);
  return out;
}

/** A language's name in English for members' pages ("Spanish"), through Intl; the code itself when Intl has no name for it. */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "language" }).of(code) ?? code;
  } catch {
    return code;
  }
}
