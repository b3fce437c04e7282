// Client ID Metadata Documents (MCP 2025-11-25 authorization, "Client ID Metadata Documents";
// draft-ietf-oauth-client-id-metadata-document): a client whose `client_id` is an https URL
// publishes its metadata there. We fetch it through the outbound guard (https only, no private
// addresses, 5 KiB, 5 s), cache it as its Cache-Control says within 60 s to 24 h (5 minutes when
// it says nothing), and check it (its `client_id` is the URL, redirect URIs, public client).
//
// Anyone can send a browser to the authorization endpoint, signed in or not, so a fetch is a
// thing strangers can make us do (docs/decisions.md "Client metadata documents, fetched for
// strangers"): fetches are limited per client address and per document URL (deps.limiter),
// concurrent requests for one URL share one fetch, a document is kept at least a minute whatever
// it says, a failure is shown as "could not be read" (the cause goes to the log), and the
// client's row is written only once a signed-in member reaches consent (`keepMetadataClient`).
import { oauthClients } from "../db/schema/index.ts";
import { sha256Hex } from "../crypto/tokens.ts";
import type { Deps } from "../deps.ts";
import type { MetadataClient } from "../ports/caches.ts";
import { BlockedUrlError, guardedFetch, readCapped, RedirectRefusedError, ResponseTooLargeError } from "../net/guard.ts";
import { redirectUriProblem } from "./checks/redirect-uri.ts";
import { GRANT_TYPES } from "./clients.ts";

export const METADATA_DOCUMENT_LIMITS = {
  bytes: 5 * 1024,
  timeoutMs: 5_000,
  defaultTtlS: 300,
  /** Kept at least this long, even when the document says max-age=0, no-cache or no-store. */
  minTtlS: 60,
  maxTtlS: 86_400,
  cached: 1_000,
  urlLength: 2_000,
  /** Fetches a client address may cause (cache hits and shared fetches cost nothing). */
  perAddress: { limit: 10, windowSeconds: 60 },
  /** Fetches of one document URL, across every server process. */
  perUrl: { limit: 6, windowSeconds: 60 },
};

/**
 * Why a document was refused: shown on the authorization error page (never a redirect). The
 * message is what the page says; a document we could not read says only that.
 */
export class MetadataDocumentError extends Error {}

/** Too many fetches for this client address or this URL: a 429 page with Retry-After. */
export class MetadataFetchLimitedError extends Error {
  constructor(
    readonly retryAfter: number,
    readonly per: "address" | "url",
  ) {
    super(
      per === "address"
        ? `Too many applications were checked from your address; try again in ${retryAfter} seconds.`
        : `This application was checked too often; try again in ${retryAfter} seconds.`,
    );
  }
}

export type { MetadataClient };

/** An https URL with a path, no fragment, no credentials, no dot segments: a metadata document's id. */
export function isMetadataClientId(clientId: string): boolean {
  if (!clientId.startsWith("https://") || clientId.length > METADATA_DOCUMENT_LIMITS.urlLength) return false;
  try {
    const url = new URL(clientId);
    return url.pathname !== "/" && url.hash === "" && !url.username && !url.password && !/\/\.\.?(\/|$)/.test(clientId.slice(8));
  } catch {
    return false;
  }
}

/** Seconds to keep a document: its Cache-Control within [minTtlS, maxTtlS], defaultTtlS when silent. */
export function ttlSeconds(cacheControl: string | null): number {
  const { defaultTtlS, minTtlS, maxTtlS } = METADATA_DOCUMENT_LIMITS;
  const directives = (cacheControl ?? "")
    .toLowerCase()
    .split(",")
    .map((d) => d.trim());
  if (directives.some((d) => d === "no-store" || d === "no-cache")) return minTtlS;
  const maxAge = directives.map((d) => /^max-age=(\d+)$/.exec(d)?.[1]).find((v) => v !== undefined);
  const seconds = maxAge === undefined ? defaultTtlS : Number(maxAge);
  return Math.max(minTtlS, Math.min(seconds, maxTtlS));
}

function check(url: string, document: unknown): MetadataClient {
  if (typeof document !== "object" || document === null || Array.isArray(document))
    throw new MetadataDocumentError("the client's metadata document is not a JSON object");
  const d = document as Record<string, unknown>;
  if (d.client_id !== url) throw new MetadataDocumentError("the client's metadata document names another client_id than its own URL");
  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > 20 || uris.some((u) => typeof u !== "string" || redirectUriProblem(u) !== null))
    throw new MetadataDocumentError("the client's metadata document has no valid redirect_uris");
  const method = d.token_endpoint_auth_method ?? "none";
  if (method !== "none") throw new MetadataDocumentError("the client's metadata document asks for a token_endpoint_auth_method other than none");
  if (d.client_secret !== undefined) throw new MetadataDocumentError("a client metadata document must not carry a client_secret");
  const name = typeof d.client_name === "string" && d.client_name.length > 0 ? d.client_name.slice(0, 200) : new URL(url).host;
  return { name, host: new URL(url).host, redirectUris: uris as string[] };
}

const UNREADABLE = "the client's metadata document could not be read";

/**
 * A document we could not read: the page says only that (the upstream's status, size or address
 * would make us an oracle for anyone's URLs); the cause goes to the log with the URL's host alone.
 */
function unreadable(deps: Pick<Deps, "log">, url: string, reason: string): MetadataDocumentError {
  deps.log.warn("client metadata document unreadable", { host: new URL(url).host, reason });
  return new MetadataDocumentError(UNREADABLE);
}

async function fetchDocument(deps: Pick<Deps, "guard" | "log">, url: string): Promise<{ client: MetadataClient; ttl: number }> {
  let response: Response;
  try {
    response = await guardedFetch(
      url,
      { headers: { accept: "application/json" }, signal: AbortSignal.timeout(METADATA_DOCUMENT_LIMITS.timeoutMs) },
      deps.guard,
    );
  } catch (error) {
    if (error instanceof BlockedUrlError || error instanceof RedirectRefusedError) throw unreadable(deps, url, error.message);
    throw unreadable(deps, url, (error as Error).name === "TimeoutError" ? "timed out" : "the request failed");
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    throw unreadable(deps, url, `answered ${response.status}`);
  }
  let bytes: Uint8Array;
  try {
    bytes = await readCapped(response, METADATA_DOCUMENT_LIMITS.bytes);
  } catch (error) {
    throw unreadable(deps, url, error instanceof ResponseTooLargeError ? `larger than ${METADATA_DOCUMENT_LIMITS.bytes} bytes` : "the body was cut off");
  }
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw unreadable(deps, url, "not JSON");
  }
  return { client: check(url, document), ttl: ttlSeconds(response.headers.get("cache-control")) };
}

/** One fetch, if the limits allow it: per client address, then per URL (src/ratelimit/leased.ts). */
async function limitedFetch(deps: Pick<Deps, "clientDocuments" | "guard" | "limiter" | "log" | "now">, url: string, ip: string): Promise<MetadataClient> {
  const now = deps.now();
  for (const [per, key, limit] of [
    ["address", `oauth:cimd:ip:${ip}`, METADATA_DOCUMENT_LIMITS.perAddress],
    ["url", `oauth:cimd:url:${sha256Hex(url)}`, METADATA_DOCUMENT_LIMITS.perUrl],
  ] as const) {
    const taken = await deps.limiter.take(key, limit, now);
    if (!taken.allowed) throw new MetadataFetchLimitedError(taken.retryAfter, per);
  }
  const { client, ttl } = await fetchDocument(deps, url);
  const cache = deps.clientDocuments;
  cache.delete(url);
  if (cache.size >= METADATA_DOCUMENT_LIMITS.cached) cache.delete(cache.keys().next().value!);
  cache.set(url, { value: client, until: deps.now().getTime() + ttl * 1000 });
  return client;
}

/**
 * The client a URL `client_id` names, cached or fetched and checked; writes nothing. Requests
 * that find the same URL in flight share its fetch and its outcome (the limits are charged to
 * the request that started it). Throws MetadataDocumentError or MetadataFetchLimitedError.
 */
export async function metadataClient(
  deps: Pick<Deps, "clientDocumentFetches" | "clientDocuments" | "guard" | "limiter" | "log" | "now">,
  url: string,
  ip: string,
): Promise<MetadataClient> {
  const hit = deps.clientDocuments.get(url);
  if (hit && hit.until > deps.now().getTime()) return hit.value;
  return deps.clientDocumentFetches.run(url, () => limitedFetch(deps, url, ip));
}

/**
 * The document's client as an `oauth_clients` row whose id is the URL, so that the consent
 * request, codes, grants and tokens refer to it as to any registered client. Written (or
 * refreshed) only when a signed-in member reaches consent.
 */
export async function keepMetadataClient(deps: Pick<Deps, "db" | "now">, url: string, client: MetadataClient): Promise<void> {
  const values = {
    name: client.name,
    redirectUris: client.redirectUris,
    tokenEndpointAuthMethod: "none",
    grantTypes: [...GRANT_TYPES] as string[],
    responseTypes: ["code"],
    metadata: { client_id_metadata_document: url },
  };
  await deps.db
    .insert(oauthClients)
    .values({ id: url, secretHash: null, createdAt: deps.now(), ...values })
    .onConflictDoUpdate({ target: oauthClients.id, set: values });
}
