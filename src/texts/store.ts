// An org's overrides of the catalogue's sentences (README "Languages"): any key of src/i18n/en.ts,
// per language, in ICU message format. Checked on save (the key exists, the message parses and
// uses only the English sentence's placeholders: 400 naming the key), cached per org like the
// other per-org settings (kit/fresh-cache.ts, dropped here and on every instance through
// deps.invalidation), and applied wherever the catalogue is: `resolveTexts`.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { ActivityInput } from "../activity/log.ts";
import { recordActivity } from "../activity/log.ts";
import { orgTexts } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isMessageKey, type MessageKey, messageProblem, type Overrides, type Params, t } from "../i18n/catalogue.ts";
import { createFreshCache } from "../kit/fresh-cache.ts";
import { normalizeLanguage } from "../kit/language.ts";
import type { OrgTextsCache } from "../ports/caches.ts";
import { orgDefaultLanguage } from "../tenancy/orgs.ts";

export const TEXTS_LIMITS = {
  /** Characters of one overriding message. */
  message: 2000,
  /** Keys changed by one request. */
  keysPerRequest: 200,
  /** Overrides an org keeps, all languages together. */
  perOrg: 2000,
} as const;

/** The org's sentences in one language: `t` says a key with the org's override of it, else the catalogue's. */
export interface Texts {
  language: string;
  overrides: Overrides;
  t(key: MessageKey, params?: Params): string;
}

export function textsOf(language: string, overrides: Overrides = {}): Texts {
  return { language, overrides, t: (key, params) => t(language, key, params, overrides) };
}

async function loadOverrides(deps: Pick<Deps, "db">, orgId: string): Promise<Record<string, Overrides>> {
  const rows = await deps.db
    .select({ language: orgTexts.language, key: orgTexts.key, message: orgTexts.message })
    .from(orgTexts)
    .where(eq(orgTexts.orgId, orgId));
  const out: Record<string, Overrides> = {};
  for (const row of rows) if (isMessageKey(row.key)) (out[row.language] ??= {})[row.key] = row.message;
  return out;
}

/** The per-org cache of overrides (deps.texts): 30 s at most, dropped at once by `publish("texts", orgId)`. */
export function createTextsCache(deps: Pick<Deps, "db" | "now" | "invalidation">): OrgTextsCache {
  const cache = createFreshCache<Record<string, Overrides>>({
    ttlMs: 30_000,
    aheadMs: 5_000,
    maxEntries: 10_000,
    now: () => deps.now().getTime(),
    load: (orgId) => loadOverrides(deps, orgId),
  });
  deps.invalidation.subscribe("texts", (orgId) => cache.delete(orgId));
  return cache;
}

/** The org's sentences in `language` (ISO 639-1; English for a language without a catalogue, the org's overrides for it still applied). */
export async function resolveTexts(deps: Pick<Deps, "texts">, orgId: string, language: string): Promise<Texts> {
  const overrides = (await deps.texts.get(orgId))[language] ?? {};
  return textsOf(language, overrides);
}

/** The org's sentences for a customer whose language may not be known (a ticket's, an email's): then the org's default. */
export async function customerTexts(deps: Pick<Deps, "db" | "texts">, orgId: string, language: string | null | undefined): Promise<Texts> {
  return resolveTexts(deps, orgId, language ?? (await orgDefaultLanguage(deps.db, orgId)));
}

/** The overrides of one language as stored (for the settings page and GET /api/texts). */
export async function languageOverrides(deps: Pick<Deps, "db">, orgId: string, language: string): Promise<Overrides> {
  return (await loadOverrides(deps, orgId))[language] ?? {};
}

/** A language parameter: ISO 639-1 after normalising, else 400. */
export function languageParam(value: string): string {
  const language = normalizeLanguage(value);
  if (!language) throw AppError.badRequest("language must be a language tag such as es or pt-BR.", [{ path: "/language", message: "is not a language tag" }]);
  return language;
}

/**
 * Sets (a message) or removes (null or "") the org's overrides of some keys in one language. Every
 * key is checked before anything is written: one bad key or message fails the whole request, 400
 * naming it (`/texts/<key>`).
 */
export async function setOverrides(
  deps: Pick<Deps, "db" | "now" | "invalidation">,
  orgId: string,
  actor: ActivityInput["actor"],
  language: string,
  texts: Record<string, string | null>,
): Promise<void> {
  const entries = Object.entries(texts);
  if (entries.length > TEXTS_LIMITS.keysPerRequest)
    throw AppError.badRequest(`At most ${TEXTS_LIMITS.keysPerRequest} keys per request.`, [
      { path: "/texts", message: `has more than ${TEXTS_LIMITS.keysPerRequest} keys` },
    ]);
  const details: { path: string; message: string }[] = [];
  const set: { key: MessageKey; message: string }[] = [];
  const removed: string[] = [];
  for (const [key, value] of entries) {
    const path = `/texts/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    if (!isMessageKey(key)) details.push({ path, message: "is not a key of the catalogue" });
    else if (value === null || value.trim() === "") removed.push(key);
    else if (value.length > TEXTS_LIMITS.message) details.push({ path, message: `is longer than ${TEXTS_LIMITS.message} characters` });
    else {
      const problem = messageProblem(key, value);
      if (problem) details.push({ path, message: problem });
      else set.push({ key, message: value });
    }
  }
  if (details.length > 0) throw AppError.badRequest(`${details[0]!.path.slice("/texts/".length)} ${details[0]!.message}.`, details);
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    if (removed.length > 0) await tx.delete(orgTexts).where(and(eq(orgTexts.orgId, orgId), eq(orgTexts.language, language), inArray(orgTexts.key, removed)));
    if (set.length > 0)
      await tx
        .insert(orgTexts)
        .values(set.map((s) => ({ orgId, language, key: s.key, message: s.message, updatedAt: now })))
        .onConflictDoUpdate({ target: [orgTexts.orgId, orgTexts.language, orgTexts.key], set: { message: sql`excluded.message`, updatedAt: now } });
    const [count] = await tx.select({ n: sql<number>`count(*)::int` }).from(orgTexts).where(eq(orgTexts.orgId, orgId));
    if ((count?.n ?? 0) > TEXTS_LIMITS.perOrg)
      throw AppError.badRequest(`An organisation keeps at most ${TEXTS_LIMITS.perOrg} overridden sentences.`, [
        { path: "/texts", message: `would make more than ${TEXTS_LIMITS.perOrg} overrides` },
      ]);
    await recordActivity(
      { db: tx, now: deps.now },
      { orgId, actor, action: "texts.updated", objectType: "org", objectId: orgId, summary: { language, set: set.map((s) => s.key), removed } },
    );
  });
  deps.invalidation.publish("texts", orgId);
}
