// The org's translator (README "Languages" → "Translation"): its language model, a LibreTranslate
// server or DeepL, or none. Kept as the model settings are (src/agents/llm-settings.ts):
//   * the key is encrypted with deps.cipher (associated data names the row) and never returned —
//     views say only whether one is set;
//   * a URL is checked by the outbound guard when saved, and again on every request;
//   * changing the provider or the URL without giving a key forgets the stored key, so a key is
//     never sent to a server other than the one it was saved for;
//   * every change is recorded in the activity log.
import { eq } from "drizzle-orm";
import { recordActivity } from "../activity/log.ts";
import { orgTranslationSettings, type TranslationProvider } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import type { Actor } from "../kit/actor.ts";
import { BlockedUrlError, checkUrl } from "../net/guard.ts";
import { translationUnavailable } from "./errors.ts";
import { modelTranslator } from "./model.ts";
import { deepl, libreTranslate, type Translator } from "./servers.ts";

export type { TranslationProvider };

export const TRANSLATION_PROVIDERS = ["model", "libretranslate", "deepl"] as const satisfies readonly TranslationProvider[];
export const TRANSLATION_SETTING_LIMITS = { baseUrl: 2048, apiKey: 512 } as const;

export const keyContext = (orgId: string) => `org_translation_settings.api_key:${orgId}`;

export interface TranslationSettingsInput {
  provider: TranslationProvider;
  base_url?: string | null;
  /** A new key; null removes it; absent keeps it (unless provider or base_url change). */
  api_key?: string | null;
}

export interface TranslationView {
  provider: TranslationProvider | null;
  base_url: string | null;
  api_key_set: boolean;
}

type Row = typeof orgTranslationSettings.$inferSelect;

async function rowOf(deps: Pick<Deps, "db">, orgId: string): Promise<Row | undefined> {
  const [row] = await deps.db.select().from(orgTranslationSettings).where(eq(orgTranslationSettings.orgId, orgId));
  return row;
}

const viewOf = (row: Row | undefined): TranslationView =>
  row ? { provider: row.provider, base_url: row.baseUrl, api_key_set: row.apiKey !== null } : { provider: null, base_url: null, api_key_set: false };

export async function translationView(deps: Pick<Deps, "db">, orgId: string): Promise<TranslationView> {
  return viewOf(await rowOf(deps, orgId));
}

/** The base URL without trailing slashes on its path. */
function trimBase(raw: string): string {
  const url = new URL(raw);
  url.pathname = url.pathname.replace(/\/+$/, "");
  return url.href.replace(/\/(?=$|\?)/, "");
}

async function check(
  deps: Pick<Deps, "cipher" | "guard">,
  orgId: string,
  input: TranslationSettingsInput,
  previous: Row | undefined,
): Promise<{ baseUrl: string | null; apiKey: string | null }> {
  const L = TRANSLATION_SETTING_LIMITS;
  const problems: ErrorDetail[] = [];
  const baseUrl = input.base_url ?? null;
  if (input.provider === "model") {
    if (baseUrl !== null) problems.push({ path: "/base_url", message: "is not used with the org's model (set the model's URL under Model)" });
    if (input.api_key != null) problems.push({ path: "/api_key", message: "is not used with the org's model" });
  }
  if (input.provider === "libretranslate" && baseUrl === null)
    problems.push({ path: "/base_url", message: "is required: the LibreTranslate server's address" });
  if (input.api_key != null && (input.api_key.length < 1 || input.api_key.length > L.apiKey || /[\s\x00-\x1f\x7f]/.test(input.api_key)))
    problems.push({ path: "/api_key", message: `must be 1 to ${L.apiKey} characters without spaces or control characters` });
  if (baseUrl !== null) {
    if (baseUrl.length > L.baseUrl) problems.push({ path: "/base_url", message: `must be at most ${L.baseUrl} characters` });
    else
      try {
        const { url } = await checkUrl(baseUrl, deps.guard);
        if (url.hash || url.search) problems.push({ path: "/base_url", message: "must have no query or fragment" });
      } catch (error) {
        if (!(error instanceof BlockedUrlError)) throw error;
        problems.push({ path: "/base_url", message: error.message });
      }
  }
  const base = baseUrl === null || problems.length > 0 ? baseUrl : trimBase(baseUrl);
  let apiKey: string | null;
  if (input.provider === "model" || input.api_key === null) apiKey = null;
  else if (input.api_key !== undefined) apiKey = problems.length > 0 ? null : deps.cipher.encrypt(input.api_key, keyContext(orgId));
  else apiKey = previous && previous.provider === input.provider && previous.baseUrl === base ? previous.apiKey : null;
  if (input.provider === "deepl" && apiKey === null && input.api_key == null)
    problems.push({ path: "/api_key", message: "is required: DeepL answers only with a key" });
  if (problems.length > 0) throw AppError.badRequest("The translation settings are invalid.", problems);
  return { baseUrl: base, apiKey };
}

export async function setTranslation(
  deps: Pick<Deps, "cipher" | "db" | "guard" | "now">,
  orgId: string,
  actor: Actor,
  input: TranslationSettingsInput,
): Promise<TranslationView> {
  const previous = await rowOf(deps, orgId);
  const checked = await check(deps, orgId, input, previous);
  const apiKey = checked.apiKey;
  const values = { provider: input.provider, baseUrl: checked.baseUrl, apiKey, updatedAt: deps.now() };
  await deps.db.transaction(async (tx) => {
    await tx
      .insert(orgTranslationSettings)
      .values({ orgId, ...values })
      .onConflictDoUpdate({ target: orgTranslationSettings.orgId, set: values });
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId,
        actor,
        action: "translation_settings.changed",
        objectType: "org",
        objectId: orgId,
        summary: { provider: input.provider, base_url: checked.baseUrl, api_key_set: apiKey !== null },
      },
    );
  });
  return translationView(deps, orgId);
}

export async function clearTranslation(deps: Pick<Deps, "db" | "now">, orgId: string, actor: Actor): Promise<TranslationView> {
  await deps.db.transaction(async (tx) => {
    const removed = await tx.delete(orgTranslationSettings).where(eq(orgTranslationSettings.orgId, orgId)).returning({ orgId: orgTranslationSettings.orgId });
    if (removed.length > 0)
      await recordActivity({ db: tx, now: deps.now }, { orgId, actor, action: "translation_settings.cleared", objectType: "org", objectId: orgId });
  });
  return translationView(deps, orgId);
}

/** The org's translator, or null when none is configured. */
export async function translatorFor(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "log" | "metrics" | "statements" | "timers">,
  orgId: string,
): Promise<Translator | null> {
  const row = await rowOf(deps, orgId);
  if (!row) return null;
  const apiKey = row.apiKey === null ? null : deps.cipher.decrypt(row.apiKey, keyContext(orgId));
  const server = { guard: deps.guard, timers: deps.timers };
  if (row.provider === "model") return modelTranslator(deps, orgId);
  if (row.provider === "libretranslate") return libreTranslate(server, { baseUrl: row.baseUrl!, apiKey });
  if (apiKey === null) throw translationUnavailable("DeepL is chosen for translation but has no key: set one under Settings → Translation.");
  return deepl(server, { baseUrl: row.baseUrl, apiKey });
}
