// One polite request of a sync (README "Knowledge sources"). Every request goes through the
// outbound guard (src/net/guard.ts): https only in production, no private address, the address
// checked and pinned. The guard never follows redirects; this follows them here, hop by hop, each
// hop checked by the guard again, at most SYNC_LIMITS.redirects, and only within the source's site
// (the same host). Conditional requests carry the page's ETag and Last-Modified (RFC 9110 section
// 13.1), so an unchanged page answers 304 and costs nothing. Bodies are capped.
import type { Deps } from "../deps.ts";
import { isTimeout } from "../kit/timeouts.ts";
import { BlockedUrlError, guardedFetch, readCapped, RedirectRefusedError, ResponseTooLargeError } from "../net/guard.ts";
import { SYNC_LIMITS } from "./model.ts";

export const USER_AGENT = "svc-agents-knowledge-sync/1.0 (+knowledge sources; respects robots.txt)";

export type Fetched =
  | { kind: "ok"; url: string; bytes: Uint8Array; contentType: string; etag: string | null; lastModified: string | null }
  | { kind: "not_modified"; url: string }
  | { kind: "gone"; url: string; status: number }
  | { kind: "failed"; url: string; reason: string; status?: number };

export interface FetchOptions {
  accept: string;
  /** The host a redirect may lead to (the source's site). */
  host: string;
  /** The validators remembered for a page (the first one asked for, or a redirect's target), if any. */
  validators?: (url: string) => { etag: string | null; lastModified: string | null } | undefined;
  maxBytes?: number;
  signal: AbortSignal;
  headers?: Record<string, string>;
}

export function mediaType(header: string | null): string {
  return (header ?? "").split(";")[0]!.trim().toLowerCase();
}

export async function politeFetch(deps: Pick<Deps, "guard" | "timers">, start: string, options: FetchOptions): Promise<Fetched> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const signal = AbortSignal.any([options.signal, deps.timers.deadline(SYNC_LIMITS.pageTimeoutMs)]);
    const headers: Record<string, string> = { accept: options.accept, "user-agent": USER_AGENT, ...options.headers };
    // Each hop carries the validators of the page it asks for (a redirect's target may be known).
    const known = options.validators?.(url);
    if (known?.etag) headers["if-none-match"] = known.etag;
    if (known?.lastModified) headers["if-modified-since"] = known.lastModified;
    try {
      const response = await guardedFetch(url, { headers, signal }, deps.guard);
      if (response.status === 304) {
        await response.body?.cancel();
        return { kind: "not_modified", url };
      }
      if (response.status === 404 || response.status === 410) {
        await response.body?.cancel();
        return { kind: "gone", url, status: response.status };
      }
      if (!response.ok) {
        await response.body?.cancel();
        return { kind: "failed", url, reason: `the page answered HTTP ${response.status}`, status: response.status };
      }
      const bytes = await readCapped(response, options.maxBytes ?? SYNC_LIMITS.pageBytes);
      return {
        kind: "ok",
        url,
        bytes,
        contentType: mediaType(response.headers.get("content-type")),
        etag: response.headers.get("etag"),
        lastModified: response.headers.get("last-modified"),
      };
    } catch (error) {
      // The guard refuses every 3xx, 304 Not Modified included: here that one is an answer.
      if (error instanceof RedirectRefusedError && error.status === 304) return { kind: "not_modified", url };
      if (error instanceof RedirectRefusedError) {
        if (hop >= SYNC_LIMITS.redirects) return { kind: "failed", url: start, reason: `more than ${SYNC_LIMITS.redirects} redirects` };
        let next: URL;
        try {
          next = new URL(error.location ?? "", url);
        } catch {
          return { kind: "failed", url: start, reason: "a redirect without a usable Location" };
        }
        if (!error.location) return { kind: "failed", url: start, reason: "a redirect without a Location" };
        if (next.host !== options.host) return { kind: "failed", url: start, reason: `a redirect off the source's site (to ${next.host})` };
        next.hash = "";
        url = next.href;
        continue;
      }
      if (error instanceof BlockedUrlError) return { kind: "failed", url, reason: error.message };
      if (error instanceof ResponseTooLargeError)
        return { kind: "failed", url, reason: `the page is larger than ${options.maxBytes ?? SYNC_LIMITS.pageBytes} bytes` };
      if (options.signal.aborted) throw error;
      if (isTimeout(error)) return { kind: "failed", url, reason: `no answer within ${SYNC_LIMITS.pageTimeoutMs / 1000} s` };
      return { kind: "failed", url, reason: "the page could not be fetched (connection or TLS failure)" };
    }
  }
}
