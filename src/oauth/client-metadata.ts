// Client ID Metadata Documents (MCP 2025-11-25 authorization, "Client ID Metadata Documents";
// draft-ietf-oauth-client-id-metadata-document): a client whose `client_id` is an https URL
// publishes its metadata there. We fetch it through the outbound guard (https only, no private
// addresses, 5 KiB, 5 s), cache it as its Cache-Control says within 0 s to 24 h (5 minutes when
// it says nothing), check it (its `client_id` is the URL, redirect URIs, public client) and keep
// a client row under that id so that codes and tokens work as for any registered client.
import { oauthClients } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { BlockedUrlError, guardedFetch, readCapped, RedirectRefusedError, ResponseTooLargeError } from "../net/guard.ts";
import { redirectUriProblem } from "./checks/redirect-uri.ts";
import { GRANT_TYPES } from "./clients.ts";

export const METADATA_DOCUMENT_LIMITS = { bytes: 5 * 1024, timeoutMs: 5_000, defaultTtlS: 300, maxTtlS: 86_400, cached: 1_000, urlLength: 2_000 };

/** Why a document was refused: shown on the authorization error page (never a redirect). */
export class MetadataDocumentError extends Error {}

export interface MetadataClient {
  name: string;
  /** The URL's host: what the consent page names, since `client_name` proves nothing. */
  host: string;
  redirectUris: string[];
}

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

function ttlSeconds(cacheControl: string | null): number {
  const directives = (cacheControl ?? "")
    .toLowerCase()
    .split(",")
    .map((d) => d.trim());
  if (directives.some((d) => d === "no-store" || d === "no-cache")) return 0;
  const maxAge = directives.map((d) => /^max-age=(\d+)$/.exec(d)?.[1]).find((v) => v !== undefined);
  const seconds = maxAge === undefined ? METADATA_DOCUMENT_LIMITS.defaultTtlS : Number(maxAge);
  return Math.min(seconds, METADATA_DOCUMENT_LIMITS.maxTtlS);
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

async function fetchDocument(deps: Deps, url: string): Promise<{ client: MetadataClient; ttl: number }> {
  let response: Response;
  try {
    response = await guardedFetch(
      url,
      { headers: { accept: "application/json" }, signal: AbortSignal.timeout(METADATA_DOCUMENT_LIMITS.timeoutMs) },
      deps.guard,
    );
  } catch (error) {
    if (error instanceof BlockedUrlError || error instanceof RedirectRefusedError)
      throw new MetadataDocumentError(`the client's metadata document cannot be fetched: ${error.message}`);
    throw new MetadataDocumentError("the client's metadata document could not be fetched in time");
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    throw new MetadataDocumentError(`the client's metadata document answered ${response.status}`);
  }
  let bytes: Uint8Array;
  try {
    bytes = await readCapped(response, METADATA_DOCUMENT_LIMITS.bytes);
  } catch (error) {
    if (error instanceof ResponseTooLargeError)
      throw new MetadataDocumentError(`the client's metadata document is larger than ${METADATA_DOCUMENT_LIMITS.bytes} bytes`);
    throw new MetadataDocumentError("the client's metadata document could not be read");
  }
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new MetadataDocumentError("the client's metadata document is not JSON");
  }
  return { client: check(url, document), ttl: ttlSeconds(response.headers.get("cache-control")) };
}

/**
 * The client a URL `client_id` names, fetched (or cached) and checked, with its row written so
 * codes and tokens can refer to it. Throws MetadataDocumentError.
 */
export async function metadataClient(deps: Deps, url: string): Promise<MetadataClient> {
  const now = deps.now().getTime();
  const cache = deps.clientDocuments;
  const hit = cache.get(url);
  if (hit && hit.until > now) return hit.value as MetadataClient;
  const { client, ttl } = await fetchDocument(deps, url);
  if (ttl > 0) {
    if (cache.size >= METADATA_DOCUMENT_LIMITS.cached) cache.delete(cache.keys().next().value!);
    cache.set(url, { value: client, until: now + ttl * 1000 });
  }
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
  return client;
}
