// Which language a text, a customer or a document is in: ISO 639-1 codes ("es", "zh"), detected
// with ELD (the `eld` package, Apache-2.0: n-gram tables in JavaScript, no network) and otherwise
// taken from what the customer's side says, in the order the README's "Languages" section gives:
// the message itself when it is long enough to tell, then the conversation's language, then the
// widget's locale (snippet, `identify()`, the browser), then the org's default.

/** The languages every customer-facing sentence ships in (the catalogue must hold each key in each). */
export const CATALOGUE_LANGUAGES = ["en", "es", "de", "fr", "pt", "it", "nl", "ja", "zh", "ar"] as const;
export type CatalogueLanguage = (typeof CATALOGUE_LANGUAGES)[number];

/** Languages written right to left: the widget and pages set `dir="rtl"` for them. */
const RTL = new Set(["ar", "he", "fa", "ur", "yi", "ps", "sd", "ug", "dv"]);

export const isRtl = (language: string | null | undefined): boolean => language != null && RTL.has(language);

/**
 * The primary language subtag of a BCP 47 tag, lower-cased ("pt-BR" → "pt", "zh-Hans-CN" → "zh"),
 * or null when the tag is not one (RFC 5646 section 2.1: 2–3 letters, or a 4–8 letter registered one,
 * which this service does not use). `Intl.getCanonicalLocales` is the validator, so what passes
 * is what `Intl` formats with.
 */
export function normalizeLanguage(tag: unknown): string | null {
  if (typeof tag !== "string" || tag.length === 0 || tag.length > 35) return null;
  const known = normalized.get(tag);
  if (known !== undefined) return known;
  let primary: string | null = null;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag.replace(/_/g, "-"));
    const code = canonical?.split("-")[0]?.toLowerCase();
    primary = code && /^[a-z]{2,3}$/.test(code) ? code : null;
  } catch {
    primary = null;
  }
  // Every turn reads several tags (the message's, the conversation's, the widget's, the org's):
  // ICU's validation costs microseconds each, so answers are remembered — a bounded set, since
  // tags come from clients (cleared whole when full).
  if (normalized.size >= NORMALIZED_MAX) normalized.clear();
  normalized.set(tag, primary);
  return primary;
}

const NORMALIZED_MAX = 1000;
const normalized = new Map<string, string | null>();

type Detector = { detect: (text: string) => { language: string; isReliable: () => boolean; getScores: () => Record<string, number> } };
let detector: Promise<Detector> | null = null;

/** ELD's medium tables (2 MB of code, ~0.5 s to load): imported on first use, not at start. */
const loadDetector = (): Promise<Detector> => {
  detector ??= import("eld/medium").then((m) => m.eld as Detector);
  return detector;
};

/** Letters (any script) in a text: what detection has to go on. */
const letterCount = (text: string) => text.match(/\p{L}/gu)?.length ?? 0;

/** Whether a text holds at least `n` letters: counts no further than that (every chat message asks). */
function hasLetters(text: string, n: number): boolean {
  const letter = /\p{L}/gu;
  for (let found = 0; found < n; found++) if (!letter.test(text)) return false;
  return true;
}

/**
 * The language of a text when it can be told: null for a text with fewer than `minLetters`
 * letters or one ELD itself calls unreliable (single words — "ok", "merci" — often are). Only the
 * first 2,000 characters are read: enough to tell, and bounded work whatever the text.
 */
export async function detectLanguage(text: string, minLetters = 4): Promise<string | null> {
  const sample = text.slice(0, 2000);
  if (!hasLetters(sample, minLetters)) return null;
  const result = (await loadDetector()).detect(sample);
  return result.language !== "" && result.isReliable() ? normalizeLanguage(result.language) : null;
}

/** The first of `candidates` that is a language tag, normalised; `fallback` when none is. */
export function firstLanguage(candidates: readonly unknown[], fallback = "en"): string {
  for (const c of candidates) {
    const language = normalizeLanguage(c);
    if (language) return language;
  }
  return fallback;
}

/**
 * The language to address a customer in for a message: the message's own when detection can tell,
 * else the conversation's, else the widget's locale, else the org's default (else English).
 */
export async function customerLanguage(message: string, known: { conversation?: string | null; widget?: string | null; org?: string | null }): Promise<string> {
  return (await detectLanguage(message)) ?? firstLanguage([known.conversation, known.widget, known.org]);
}

/**
 * Of `candidates` (ISO 639-1 codes), the one ELD scores highest for the text, and whether ELD's
 * own guess was reliable; null when the text has fewer than `minLetters` letters or no candidate
 * scores. For a help centre that speaks only some languages: Hindi that ELD takes for Marathi by
 * a hair is read as Hindi when the pages are in Hindi and not Marathi.
 */
export async function detectAmong(text: string, candidates: readonly string[], minLetters = 4): Promise<{ language: string; reliable: boolean } | null> {
  // Latin words inside a text in another script are names and acronyms ("NSFNET的角色"), not its language.
  const whole = text.slice(0, 2000);
  const other = whole.replace(/[\p{Script=Latin}\p{N}]+/gu, " ");
  const otherLetters = letterCount(other);
  // Two letters of a script without spaces say more than four of an alphabet; the rest of the text must not be mostly Latin.
  const sample = otherLetters >= 2 && otherLetters * 3 >= letterCount(whole) ? other : whole;
  if (sample === whole && letterCount(sample) < minLetters) return null;
  const result = (await loadDetector()).detect(sample);
  const scores = result.language === "" ? {} : result.getScores();
  let best: string | null = null;
  let score = 0;
  for (const [language, value] of Object.entries(scores)) {
    const code = normalizeLanguage(language);
    if (code && candidates.includes(code) && value > score) [best, score] = [code, value];
  }
  return best ? { language: best, reliable: result.isReliable() } : null;
}
