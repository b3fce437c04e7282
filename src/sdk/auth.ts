// The publishable widget key (docs/interface.md 5: `Authorization: Bearer ab_live_<WIDGET_KEY>`) and the
// org's optional list of allowed browser origins. Every keyed /api/sdk
// route calls `requireWidgetKey` first; the org it returns is the only org the request may touch.
import type { LiveWidgetKey, WidgetKeyCache } from "../ports/caches.ts";
import { eq } from "drizzle-orm";
import { widgetSettings } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { bearerToken } from "../kit/bearer.ts";
import { createFreshCache } from "../kit/fresh-cache.ts";
import type { Invalidation } from "../invalidation.ts";
import { liveWidgetKey } from "../orgs/lookups.ts";
import { WIDGET_KEY_PREFIX } from "../orgs/service.ts";

/** `ab_live_` then base64url; we mint 32 characters (24 random bytes), accept 16 to 128. */
const WIDGET_KEY = /^ab_live_[A-Za-z0-9_-]{16,128}$/;

export interface WidgetAuth {
  orgId: string;
  keyId: string;
}

function invalidKey(message: string): AppError {
  return new AppError(401, "invalid_widget_key", message);
}

/** WIDGET_KEY_CACHE_TTL_MS: without a notification, a revoked key or changed origins reach every instance within this long. */
export const WIDGET_KEY_CACHE_TTL_MS = 1000;

/**
 * Live widget keys with their org's allowed origins, cached per process (deps.widgetKeys): every
 * /api/sdk request presents one. A key revoked or created, or origins changed, through the service
 * publishes `widget_keys`, which empties this cache here at once and in every other instance
 * through NOTIFY; the TTL bounds what a lost notification leaves. Unknown keys are cached too
 * (a flood of made-up keys costs one lookup each per TTL).
 */
export function createWidgetKeyCache(deps: Pick<Deps, "db" | "now">, invalidation: Invalidation): WidgetKeyCache {
  const cache = createFreshCache<LiveWidgetKey | null>({
    ttlMs: WIDGET_KEY_CACHE_TTL_MS,
    aheadMs: WIDGET_KEY_CACHE_TTL_MS / 4,
    maxEntries: 20_000,
    now: () => deps.now().getTime(),
    load: async (key) => {
      const found = await liveWidgetKey(deps, key);
      if (!found) return null;
      const [settings] = await deps.db
        .select({ allowedOrigins: widgetSettings.allowedOrigins })
        .from(widgetSettings)
        .where(eq(widgetSettings.orgId, found.orgId))
        .limit(1);
      return { ...found, allowedOrigins: settings?.allowedOrigins ?? null };
    },
  });
  invalidation.subscribe("widget_keys", () => cache.clear());
  return cache;
}

export function isWidgetKeyFormat(key: string): boolean {
  return key.startsWith(WIDGET_KEY_PREFIX) && WIDGET_KEY.test(key);
}

/**
 * A browser origin in its serialised form (RFC 6454 section 6.2: scheme://host[:port], lower-case, default
 * port dropped), or null when `value` is not an http(s) origin.
 */
export function normaliseOrigin(value: string): string | null {
  if (value.length > 2048) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password || (url.pathname !== "/" && url.pathname !== "") || url.search || url.hash) return null;
  return url.origin;
}

/**
 * The org of a keyed SDK request. Missing, malformed, unknown or revoked key → 401
 * `invalid_widget_key`. When the org lists allowed origins, a request carrying an `Origin` header
 * that is not listed → 403 `origin_not_allowed`; requests without `Origin` (backends, curl) pass,
 * since only browsers send it and only browsers can be stopped from using a key copied off a page.
 */
export async function requireWidgetKey(deps: Pick<Deps, "widgetKeys">, request: Request): Promise<WidgetAuth> {
  const header = request.headers.get("authorization");
  if (!header) throw invalidKey("Send the widget key as `Authorization: Bearer ab_live_…`.");
  const key = bearerToken(header);
  if (!key || !isWidgetKeyFormat(key)) throw invalidKey("The widget key is malformed: expected `Authorization: Bearer ab_live_…`.");
  const row = await deps.widgetKeys.get(key);
  if (!row) throw invalidKey("The widget key is unknown or has been revoked.");
  const origin = request.headers.get("origin");
  const allowed = row.allowedOrigins ?? [];
  if (origin !== null && allowed.length > 0) {
    const normalised = normaliseOrigin(origin);
    if (normalised === null || !allowed.includes(normalised))
      throw new AppError(
        403,
        "origin_not_allowed",
        `This widget key may not be used from ${origin.slice(0, 200)}: the organisation allows only its listed origins.`,
      );
  }
  return { orgId: row.orgId, keyId: row.id };
}
