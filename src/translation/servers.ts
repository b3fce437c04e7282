// Translation servers (README "Languages" → "Translation"), each one POST through the outbound
// guard with a total deadline, a bounded answer and no retry (a member is waiting; they can send again):
//   * LibreTranslate: POST {base}/translate, JSON {q, source, target, format: "text", api_key}
//     → {translatedText}; errors {error} with 400 (bad language), 403 (bad key), 429, 500.
//   * DeepL: POST {base}/v2/translate, `Authorization: DeepL-Auth-Key <key>`, JSON {text: [...],
//     target_lang, source_lang} → {translations: [{detected_source_language, text}]}; errors
//     {message} with 403 (bad key), 456 (quota), 429, 5xx. A key ending in `:fx` is a free
//     account's, served by api-free.deepl.com; other keys by api.deepl.com (the default base).
// A 4xx is the translator refusing, anything else an outage; both are errors, never half a text.
import type { Deps } from "../deps.ts";
import { AppError, messageOf } from "../errors.ts";
import { JsonInputError, parseJsonBounded } from "../http/json.ts";
import { realTimers } from "../kit/timers.ts";
import { BlockedUrlError, guardedFetch, RedirectRefusedError, readCapped, ResponseTooLargeError } from "../net/guard.ts";
import { TRANSLATION_LIMITS, translationFailed } from "./errors.ts";

export interface TranslateRequest {
  text: string;
  /** The text's language when known (ISO 639-1); null lets the translator detect it. */
  from: string | null;
  to: string;
}

export interface Translator {
  provider: "model" | "libretranslate" | "deepl";
  /** The translation, whole; throws AppError 502 translation_failed otherwise. */
  translate(request: TranslateRequest): Promise<string>;
}

type ServerDeps = Pick<Deps, "guard"> & { timers?: Pick<typeof realTimers, "deadline"> };

export const DEEPL_BASE = { pro: "https://api.deepl.com", free: "https://api-free.deepl.com" } as const;

/** `{base}{path}` with the base's own path kept (a server mounted under /translate-api/). */
function under(base: string, path: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${path}`;
  return url.href;
}

/** The text of an error body: `{error}` (LibreTranslate), `{message}` (DeepL), or the start of the text. */
function errorText(bytes: Uint8Array): string {
  const raw = new TextDecoder().decode(bytes.subarray(0, TRANSLATION_LIMITS.errorBytes));
  try {
    const body = JSON.parse(raw) as { error?: unknown; message?: unknown; detail?: unknown };
    const said = [body.error, body.message, body.detail].find((v) => typeof v === "string");
    if (typeof said === "string") return said.replace(/\s+/g, " ").slice(0, 200);
  } catch {}
  return raw.replace(/\s+/g, " ").slice(0, 200);
}

/** One POST to a translation server; the parsed JSON answer of a 2xx, or a translation_failed error. */
async function post(deps: ServerDeps, name: string, url: string, headers: Record<string, string>, body: unknown): Promise<unknown> {
  const signal = (deps.timers ?? realTimers).deadline(TRANSLATION_LIMITS.timeoutMs);
  try {
    const response = await guardedFetch(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", "user-agent": "svc-agents/1.0", ...headers },
        body: JSON.stringify(body),
        signal,
      },
      deps.guard,
    );
    if (!response.ok) {
      const detail = errorText(await readCapped(response, TRANSLATION_LIMITS.errorBytes).catch(() => new Uint8Array()));
      const what = response.status < 500 ? `${name} refused the text (${response.status})` : `${name} is failing (${response.status})`;
      throw translationFailed(`${what}${detail ? `: ${detail}` : ""}`);
    }
    const bytes = await readCapped(response, TRANSLATION_LIMITS.responseBytes);
    return parseJsonBounded(new TextDecoder().decode(bytes), { relay: true });
  } catch (error) {
    if (error instanceof AppError && error.code === "translation_failed") throw error;
    if (signal.aborted) throw translationFailed(`${name} gave no answer within ${TRANSLATION_LIMITS.timeoutMs / 1000} s`);
    if (error instanceof BlockedUrlError) throw translationFailed(`the ${name} URL is not allowed: ${error.message}`);
    if (error instanceof RedirectRefusedError) throw translationFailed(`the ${name} URL ${error.message}`);
    if (error instanceof ResponseTooLargeError) throw translationFailed(`${name}'s answer is larger than ${TRANSLATION_LIMITS.responseBytes} bytes`);
    if (error instanceof JsonInputError || error instanceof SyntaxError) throw translationFailed(`${name}'s answer is not JSON`);
    throw translationFailed(`${name} could not be reached (${messageOf(error).slice(0, 120)})`);
  }
}

export function libreTranslate(deps: ServerDeps, settings: { baseUrl: string; apiKey: string | null }): Translator {
  return {
    provider: "libretranslate",
    async translate({ text, from, to }) {
      const answer = (await post(
        deps,
        "LibreTranslate",
        under(settings.baseUrl, "/translate"),
        {},
        {
          q: text,
          source: from ?? "auto",
          target: to,
          format: "text",
          ...(settings.apiKey ? { api_key: settings.apiKey } : {}),
        },
      )) as { translatedText?: unknown } | null;
      if (typeof answer?.translatedText !== "string" || answer.translatedText.trim() === "")
        throw translationFailed("LibreTranslate answered without a translatedText");
      return answer.translatedText;
    },
  };
}

/** DeepL's target codes: English and Portuguese need a variant (EN, PT alone are deprecated as targets). */
const DEEPL_TARGET: Record<string, string> = { en: "EN-US", pt: "PT-BR", zh: "ZH-HANS" };

export function deepl(deps: ServerDeps, settings: { baseUrl: string | null; apiKey: string }): Translator {
  const base = settings.baseUrl ?? (settings.apiKey.endsWith(":fx") ? DEEPL_BASE.free : DEEPL_BASE.pro);
  return {
    provider: "deepl",
    async translate({ text, from, to }) {
      const answer = (await post(
        deps,
        "DeepL",
        under(base, "/v2/translate"),
        { authorization: `DeepL-Auth-Key ${settings.apiKey}` },
        {
          text: [text],
          target_lang: DEEPL_TARGET[to] ?? to.toUpperCase(),
          ...(from ? { source_lang: from.toUpperCase() } : {}),
        },
      )) as { translations?: { text?: unknown }[] } | null;
      const translated = Array.isArray(answer?.translations) ? answer.translations[0]?.text : undefined;
      if (typeof translated !== "string" || translated.trim() === "") throw translationFailed("DeepL answered without a translation");
      return translated;
    },
  };
}
