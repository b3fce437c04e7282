// The outbound guard (docs/interface.md 8.2, docs/interface.md C): every request to a URL a tenant supplied
// (connectors, custom HTTP actions, icons, favicons) goes through `guardedFetch`. It
//   1. normalises the URL (WHATWG parser) and refuses userinfo, backslashes and other schemes;
//   2. refuses names that can only be internal (localhost, *.local, *.internal, metadata.goog, …);
//   3. resolves A and AAAA and refuses if ANY answer is in a blocked range;
//   4. connects to the checked address itself — `Host` and the TLS server name stay the
//      hostname — so a second resolution (DNS rebinding) cannot swap the target;
//   5. never follows redirects: a 3xx is an error naming its Location; never uses a proxy;
//   6. reuses keep-alive connections only for the same checked address, port, scheme and TLS
//      server name (src/net/pool.ts), so the checks above still run on every request.
// Development mode allows loopback (http and https) and nothing else.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { readBodyCapped } from "./capped-body.ts";
import { blockedAddressReason, isLoopbackAddress } from "./addresses.ts";
import { type ConnectionPool, type Lease, sharedPool } from "./pool.ts";

export class BlockedUrlError extends Error {
  override name = "BlockedUrlError";
  constructor(
    message: string,
    /** The name does not resolve (as opposed to resolving somewhere forbidden). */
    readonly unresolvable = false,
  ) {
    super(message);
  }
}

export class RedirectRefusedError extends Error {
  override name = "RedirectRefusedError";
  constructor(
    readonly status: number,
    readonly location: string | null,
  ) {
    super(`the server answered ${status} redirecting to ${location ?? "(no Location)"}; redirects are not followed`);
  }
}

/** Resolves a hostname to every address it has (A and AAAA). Injectable so tests can make names resolve to anything. */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface GuardOptions {
  /** NODE_ENV=development: loopback targets (and http to them) are allowed. */
  allowLoopback: boolean;
  resolver: Resolver;
  /** Keep-alive accounting (src/net/pool.ts); the process's own when absent. Tests inject one. */
  pool?: ConnectionPool;
  /** Extra trusted certificate authority (PEM) for https; production leaves it out (system store and NODE_EXTRA_CA_CERTS). */
  ca?: string;
}

/**
 * Said with every refusal of this machine (a loopback name or address) outside development, so a
 * person setting up a local site or MCP server learns the one setting that allows it (README
 * "Configuration"); the refusal itself is unchanged.
 */
export const LOOPBACK_HINT = 'a server on this machine is reached only when the service runs with NODE_ENV=development (README "Configuration")';

const BLOCKED_NAMES = [/^localhost$/, /\.localhost$/, /\.local$/, /\.internal$/, /^metadata\.goog$/, /\.svc$/, /\.cluster\.local$/, /^metadata$/];

/** Step 1 and 2: a URL we are willing to resolve. Throws BlockedUrlError saying why not. */
export function normaliseUrl(raw: string, options: { allowLoopback: boolean }): URL {
  if (raw.length > 2048) throw new BlockedUrlError("the URL is longer than 2048 characters");
  if (/[\\\s\x00-\x1f\x7f]/.test(raw)) throw new BlockedUrlError("the URL contains backslashes, spaces or control characters");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BlockedUrlError("the URL is not absolute or cannot be parsed");
  }
  if (url.username || url.password) throw new BlockedUrlError("the URL must not contain credentials (userinfo)");
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new BlockedUrlError(`the URL scheme ${url.protocol} is not allowed; use https`);
  const host = url.hostname.replace(/\.$/, "");
  if (host === "") throw new BlockedUrlError("the URL has no host");
  // `db.internal..` would slip past the name rules below: no empty labels.
  if (!host.startsWith("[") && host.split(".").some((label) => label === "")) throw new BlockedUrlError(`the host ${url.hostname} has an empty label`);
  url.hostname = host;
  const bare = host.replace(/^\[|\]$/g, "");
  const literal = isIP(bare) !== 0;
  const loopbackName = host === "localhost" || host.endsWith(".localhost");
  if (!literal && !(options.allowLoopback && loopbackName) && BLOCKED_NAMES.some((re) => re.test(host)))
    throw new BlockedUrlError(`the host ${host} is internal-only${loopbackName ? `; ${LOOPBACK_HINT}` : ""}`);
  if (url.protocol === "http:" && !options.allowLoopback)
    throw new BlockedUrlError(`the URL must use https${literal && isLoopbackAddress(bare) ? `; ${LOOPBACK_HINT}` : ""}`);
  return url;
}

/** Steps 1–3: the URL and the one address we will connect to. */
export async function checkUrl(raw: string, options: GuardOptions): Promise<{ url: URL; address: string }> {
  const url = normaliseUrl(raw, options);
  const bare = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(bare) !== 0) addresses = [bare];
  else {
    try {
      addresses = await options.resolver(bare);
    } catch {
      throw new BlockedUrlError(`the host ${bare} does not resolve`, true);
    }
  }
  if (addresses.length === 0) throw new BlockedUrlError(`the host ${bare} does not resolve`, true);
  for (const address of addresses) {
    const reason = blockedAddressReason(address, options);
    if (reason)
      throw new BlockedUrlError(
        `the host ${bare} resolves to a blocked address: ${reason}${!options.allowLoopback && isLoopbackAddress(address) ? `; ${LOOPBACK_HINT}` : ""}`,
      );
  }
  // Plain http only in development, and only when every address is loopback.
  if (url.protocol === "http:" && !addresses.every(isLoopbackAddress))
    throw new BlockedUrlError("the URL must use https (plain http is allowed only to loopback in development)");
  return { url, address: addresses[0]! };
}

export interface GuardedInit {
  method?: string;
  headers?: Record<string, string>;
  /** A string, or a multipart form (speech to text uploads a recording). */
  body?: string | FormData;
  signal?: AbortSignal;
}

/** Steps 1–6. The response is returned unread; read it with `readCapped` (or cancel its body). */
export async function guardedFetch(raw: string, init: GuardedInit, options: GuardOptions): Promise<Response> {
  const { url, address } = await checkUrl(raw, options);
  const target = new URL(url);
  const hostHeader = url.host; // hostname[:port] as the server expects it
  const serverName = url.hostname.replace(/^\[|\]$/g, "");
  target.hostname = address.includes(":") ? `[${address}]` : address;
  const secure = url.protocol === "https:";
  const lease = (options.pool ?? sharedPool).lease({ scheme: secure ? "https:" : "http:", address, port: Number(url.port || (secure ? 443 : 80)), serverName });
  let response: Response;
  try {
    response = await fetch(target, {
      method: init.method ?? "GET",
      // Our Host wins over any casing of one the caller passed.
      headers: { ...Object.fromEntries(Object.entries(init.headers ?? {}).filter(([k]) => k.toLowerCase() !== "host")), host: hostHeader },
      body: init.body,
      signal: init.signal,
      redirect: "manual",
      proxy: false,
      // Certificate checks stay on the hostname although we connect to an address; the server
      // name is also part of Bun's keep-alive key, so a connection is never shared across names.
      // Plain http gets no TLS options: its connections are Bun's by address and port alone,
      // which is how the ledger counts them.
      ...(secure ? { tls: { serverName, ...(options.ca ? { ca: options.ca } : {}) } } : {}),
      keepalive: lease.keepalive,
    } as RequestInit);
  } catch (error) {
    lease.end(true);
    throw error;
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => {});
    lease.end(false);
    throw new RedirectRefusedError(response.status, response.headers.get("location"));
  }
  if (lease.keepalive) return tracked(response, lease);
  return response.headers.has("content-encoding")
    ? new Response(response.body, { status: response.status, statusText: response.statusText, headers: decodedHeaders(response) })
    : response;
}

/**
 * The headers of a response whose body Bun has decoded (gzip, br, …): its Content-Length counts
 * the encoded bytes, not what the caller reads, so it is dropped. Otherwise `readCapped` would
 * trust a small declared length and buffer a decompression bomb whole before refusing it.
 */
function decodedHeaders(response: Response): Headers {
  if (!response.headers.has("content-encoding")) return response.headers;
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return headers;
}

/**
 * The response with a body that ends the lease when it is read to the end, errors or is
 * cancelled: until then the connection is busy, and the ledger must not count it as parked.
 */
function tracked(response: Response, lease: Lease): Response {
  const source = response.body;
  const init = { status: response.status, statusText: response.statusText, headers: decodedHeaders(response) };
  if (!source || NULL_BODY_STATUSES.has(response.status)) {
    // No body to read (or none a Response may carry): the connection is free once Bun has the headers.
    void source?.cancel().catch(() => {});
    lease.end(false);
    return source ? new Response(null, init) : response;
  }
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          lease.end(true);
          controller.error(error);
          return;
        }
        if (chunk.done) {
          lease.end(false);
          controller.close();
        } else controller.enqueue(chunk.value);
      },
      async cancel(reason) {
        lease.end(false); // Bun closes a connection whose body was not read to the end, or has parked it already
        await reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, init);
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export class ResponseTooLargeError extends Error {
  override name = "ResponseTooLargeError";
}

/** Reads a response body up to `maxBytes`; more is an error, not a truncation. */
export async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array> {
  const bytes = await readBodyCapped(response, maxBytes);
  if (bytes === null) throw new ResponseTooLargeError(`the response is larger than ${maxBytes} bytes`);
  return bytes;
}
