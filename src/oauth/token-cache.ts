// Bearer verification for the tool server, with a short-lived cache of verified tokens.
//
// Why a cache: every tool-server request carries a token; looking it up costs a database round
// trip, which dominates a `ping`. Why it is safe: a revocation made through the service calls
// `invalidate()`, which empties the cache of this process at once (the very next request looks
// the token up again) and of every other instance through NOTIFY (src/invalidation.ts). An entry
// lives at most ACCESS_CACHE_TTL_MS (and never past the token's expiry), which bounds what a lost
// notification or a change made directly in the database leaves cached; busy tokens are looked up
// again in the background before that (src/kit/fresh-cache.ts), so no request waits for it. Unknown tokens are cached
// too (a flood of bad tokens costs one lookup each per TTL). Keys are the tokens' SHA-256.
import type { AccessVerifier } from "../ports/caches.ts";
import { sha256Hex } from "../crypto/tokens.ts";
import type { Deps } from "../deps.ts";
import type { Invalidation } from "../invalidation.ts";
import { createFreshCache } from "../kit/fresh-cache.ts";
import { ACCESS_TOKEN_PREFIX } from "./tokens.ts";
import { type AccessContext, verifyAccessTokenHash } from "./verify.ts";

/** Without a notification, a revocation reaches every instance within this long. */
export const ACCESS_CACHE_TTL_MS = 500;
const MAX_ENTRIES = 20_000;

export function createAccessVerifier(deps: Pick<Deps, "db" | "now">, invalidation: Invalidation): AccessVerifier {
  const cache = createFreshCache<AccessContext | null>({
    ttlMs: ACCESS_CACHE_TTL_MS,
    aheadMs: ACCESS_CACHE_TTL_MS / 4,
    maxEntries: MAX_ENTRIES,
    now: () => deps.now().getTime(),
    load: (hash) => verifyAccessTokenHash(deps, hash),
  });
  invalidation.subscribe("tokens", () => cache.clear());
  return {
    invalidate() {
      invalidation.publish("tokens", "*");
    },
    verify(token) {
      if (!token.startsWith(ACCESS_TOKEN_PREFIX) || token.length > 128) return Promise.resolve(null);
      // Concurrent requests with the same token share one lookup; the expiry is checked on every use.
      return cache.get(sha256Hex(token)).then((ctx) => (ctx && ctx.expiresAt.getTime() > deps.now().getTime() ? ctx : null));
    },
  };
}
