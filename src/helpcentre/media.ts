// Images of public articles, served from the help centre's own origin so a page asks no other
// origin for anything: /media/<article>/<n> is the n-th http(s) image of that article (nothing
// else can be asked for, so this is no open proxy), fetched through the outbound guard, bounded
// in size and type, and kept in this app's memory for an hour within a byte budget.
import type { Deps } from "../deps.ts";
import { articleImages } from "../html/article.ts";
import { BlockedUrlError, guardedFetch, readCapped, RedirectRefusedError, ResponseTooLargeError } from "../net/guard.ts";

export const HELP_MEDIA = {
  /** Largest image fetched. */
  bytes: 2 * 1024 * 1024,
  /** Images kept, in bytes, across orgs; the least recently used go first. */
  cacheBytes: 32 * 1024 * 1024,
  ttlMs: 60 * 60_000,
  timeoutMs: 10_000,
} as const;

/** Raster types only: an SVG can carry script and links. */
const TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"]);

interface Held {
  type: string;
  bytes: Uint8Array;
  until: number;
}

export interface MediaCache {
  entries: Map<string, Held>;
  size: number;
}

export function createMediaCache(): MediaCache {
  return { entries: new Map(), size: 0 };
}

function keep(cache: MediaCache, key: string, held: Held): void {
  const old = cache.entries.get(key);
  if (old) cache.size -= old.bytes.byteLength;
  cache.entries.delete(key);
  cache.entries.set(key, held);
  cache.size += held.bytes.byteLength;
  for (const [k, v] of cache.entries) {
    if (cache.size <= HELP_MEDIA.cacheBytes) break;
    cache.entries.delete(k);
    cache.size -= v.bytes.byteLength;
  }
}

const answer = (held: Held) =>
  new Response(held.bytes as Uint8Array<ArrayBuffer>, {
    headers: {
      "content-type": held.type,
      "cache-control": "public, max-age=3600",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'",
    },
  });

const missing = () => new Response("Not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache" } });

/** The n-th image of a public article's body (the caller read the article as public), or 404 when it is not there, not reachable or not an image. */
export function articleImage(deps: Pick<Deps, "guard" | "now" | "log">, cache: MediaCache, body: string, n: number): Promise<Response> {
  return fetchImage(deps, cache, articleImages(body)[n] ?? null);
}

/** An image by its URL (one the caller took from a public article or the org's look), through the guard and the cache. */
export async function fetchImage(deps: Pick<Deps, "guard" | "now" | "log">, cache: MediaCache, url: string | null): Promise<Response> {
  if (!url) return missing();
  const now = deps.now().getTime();
  const held = cache.entries.get(url);
  if (held && held.until > now) return answer(held);
  let response: Response;
  try {
    response = await guardedFetch(url, { headers: { accept: [...TYPES].join(", ") }, signal: AbortSignal.timeout(HELP_MEDIA.timeoutMs) }, deps.guard);
  } catch (error) {
    // not for customers: a log reason
    const why = error instanceof BlockedUrlError || error instanceof RedirectRefusedError ? error.message : "the request failed";
    deps.log.warn("help centre image unreadable", { host: new URL(url).host, reason: why });
    return missing();
  }
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (response.status !== 200 || !TYPES.has(type)) {
    await response.body?.cancel().catch(() => {});
    return missing();
  }
  let bytes: Uint8Array;
  try {
    bytes = await readCapped(response, HELP_MEDIA.bytes);
  } catch (error) {
    deps.log.warn("help centre image unreadable", { host: new URL(url).host, reason: error instanceof ResponseTooLargeError ? "too large" : "cut off" });
    return missing();
  }
  const fresh = { type, bytes, until: now + HELP_MEDIA.ttlMs };
  keep(cache, url, fresh);
  return answer(fresh);
}
