// How a translation fails (README "Languages" → "Translation"). Never a half translation: every
// failure is one of these, and a reply that needed translating is then not stored or sent.
//   * 502 translation_failed — the translator refused (a 4xx: bad key, quota, unsupported
//     language) or is out (5xx, no answer in time, unreachable, its URL refused by the outbound
//     guard, an answer we cannot read). The message says which, never the key or the text.
//   * 409 translation_unavailable — nothing to translate with: no translator configured, the
//     org's model is the builtin one, or the customer's language is not known.
//   * 400 validation_failed — the text is longer than a translation takes.
import { AppError } from "../errors.ts";

export const TRANSLATION_LIMITS = {
  /** Characters of one text sent to a translator (a ticket message holds at most 10,000). */
  text: 10_000,
  /** Bytes of a translator's answer read; more is a failure, not a truncation. */
  responseBytes: 256 * 1024,
  /** Bytes of an error body read for its message. */
  errorBytes: 16 * 1024,
  /** The whole exchange with a translation server. */
  timeoutMs: 20_000,
  /** Customer messages translated while a member opens a ticket; the rest on the next view. */
  perView: 8,
} as const;

export function translationFailed(message: string): AppError {
  return new AppError(502, "translation_failed", `Translation failed: ${message}.`);
}

export function translationUnavailable(message: string): AppError {
  return new AppError(409, "translation_unavailable", message);
}

export function isTranslationError(error: unknown): error is AppError {
  return error instanceof AppError && (error.code === "translation_failed" || error.code === "translation_unavailable");
}
