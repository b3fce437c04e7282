// Ticket input checks. These functions are called by routes (already TypeBox-validated) and by
// other areas' code and tools (not), so they check every limit themselves.
import { AppError } from "../errors.ts";
import { assertFreeForm } from "../http/free-form.ts";
import { findControlCharacter } from "../http/json-strings.ts";
import { TICKET_LIMITS } from "./ticket-model.ts";

export function fail(path: string, message: string): never {
  throw AppError.badRequest(`Invalid ${path.slice(1).replaceAll("/", ".")}: ${message}.`, [{ path, message }]);
}

export function requireText(path: string, value: unknown, max: number, opts: { min?: number } = {}): string {
  if (typeof value !== "string") fail(path, "must be a string");
  if (value.length > max) fail(path, `must be at most ${max} characters`);
  // PostgreSQL refuses NUL; other C0 controls have no place in tickets either.
  if (findControlCharacter(value) !== null) fail(path, "must not contain control characters other than tab, line feed and carriage return");
  if (value.trim().length < (opts.min ?? 0)) fail(path, "must not be empty");
  // Request bodies never carry a lone surrogate (src/http/json.ts); text our own callers cut short
  // may end in one, which is stored as U+FFFD rather than refused.
  return value.toWellFormed();
}

export function optionalTeam(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const team = requireText("/team", value, TICKET_LIMITS.team).trim();
  return team === "" ? null : team;
}

/** Trimmed, de-duplicated (case-insensitively, first spelling wins), each 1–50 characters, at most 20. */
export function normaliseTags(value: unknown, path = "/tags"): string[] {
  if (!Array.isArray(value)) fail(path, "must be an array of strings");
  if (value.length > TICKET_LIMITS.tags) fail(path, `must hold at most ${TICKET_LIMITS.tags} tags`);
  const seen = new Set<string>();
  const tags: string[] = [];
  value.forEach((raw, i) => {
    const tag = requireText(`${path}/${i}`, raw, TICKET_LIMITS.tag, { min: 1 }).trim();
    if (!seen.has(tag.toLowerCase())) {
      seen.add(tag.toLowerCase());
      tags.push(tag);
    }
  });
  return tags;
}

export function checkCustomFields(value: unknown, path = "/custom_fields"): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) fail(path, "must be an object");
  if (Object.keys(value).length > TICKET_LIMITS.customFieldKeys) fail(path, `must have at most ${TICKET_LIMITS.customFieldKeys} keys`);
  assertFreeForm(value, path);
  return value as Record<string, unknown>;
}

export function oneOf<T extends string>(path: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) fail(path, `must be one of ${allowed.join(", ")}`);
  return value as T;
}
