// The outermost layer, in front of the Elysia app: assigns the request id (a well-formed
// X-Request-Id is kept, otherwise one is generated) and the client address, echoes the id, and
// writes one log line per request. Paths are logged without their query string, so values such
// as OAuth codes never reach the log. Three refusals happen here, before any route runs:
// - a missing or malformed Host (RFC 9112 section 3.2: a request without Host, or with a Host that
//   is not uri-host [":" port], is answered 400): 400 validation_failed naming the header. Such a
//   request has no URL to route by (Bun leaves `request.url` relative), so nothing after this runs.
// - DNS rebinding (MCP transports, "Security Warning"; the conformance suite's
//   dns-rebinding-protection scenario): while BASE_URL is on a loopback host, a request whose Host
//   is neither BASE_URL's host nor a loopback name/address is 421 Misdirected Request (RFC 9110
//   section 15.5.20) naming the host we expect. A public BASE_URL is left to the reverse proxy in front.
// - control characters in the path or query (`%00` decodes to NUL, which PostgreSQL refuses):
//   400 validation_failed. Tab, CR and LF are allowed in query values, nothing below U+0020 in paths.
import type { Server } from "bun";
import { AppError, knownError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { html, page } from "../html/html.ts";
import type { Metrics } from "../ports/metrics.ts";
import { requestMeta, setRequestMeta } from "./request-meta.ts";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export type Handler = (request: Request, server?: Server<unknown>) => Promise<Response>;

export function clientIp(request: Request, server: Server<unknown> | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const first = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (first) return first;
  }
  return server?.requestIP(request)?.address ?? "unknown";
}

/** localhost, *.localhost (RFC 6761 section 6.3), 127.0.0.0/8 and ::1: names only this machine answers to. */
export function isLoopbackHostname(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return host === "localhost" || host.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/.test(host) || host === "[::1]" || host === "::1";
}

/**
 * The hostname a request was sent to (its Host header, else the URL Bun built from it), or
 * null when it is acceptable for a server whose BASE_URL is `baseUrl`.
 */
export function misdirectedHost(request: Request, baseUrl: URL): string | null {
  if (!isLoopbackHostname(baseUrl.hostname)) return null;
  const header = request.headers.get("host");
  let hostname: string;
  try {
    hostname = header ? new URL(`http://${header}`).hostname : new URL(request.url).hostname;
  } catch {
    return header ?? "";
  }
  return hostname === baseUrl.hostname || isLoopbackHostname(hostname) ? null : hostname;
}

/**
 * RFC 9110 section 7.2: Host is uri-host [":" port], uri-host an IP literal or a reg-name (RFC 3986
 * section 3.2.2; unreserved and sub-delims, so `agents_1` passes, without percent-encoding, which a
 * URL parser would decode). Userinfo, paths, spaces and ports over 65535 are refused, not parsed.
 */
const HOST_HEADER = /^(?:[a-z0-9._~!$&'()*+,;=-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * Why a request's Host is unusable, or null. Bun builds `request.url` from the Host header and
 * leaves it relative without one; a Request made in-process has an absolute URL and may have no
 * Host header, which is fine.
 */
function badHost(request: Request): string | null {
  const host = request.headers.get("host");
  if (host !== null && (!HOST_HEADER.test(host) || !URL.canParse(`http://${host}/`)))
    return "The Host header must be a host name or IP address with an optional port.";
  if (!URL.canParse(request.url))
    return host === null ? "The request has no Host header." : "The Host header must be a host name or IP address with an optional port.";
  return null;
}

/** The path of a request for the log, also when its URL does not parse (a request refused for its Host). */
const SESSION_PATH = "/api/sdk/conversations/";

/**
 * The path as the access log writes it. An unsubscribe link is a capability (RFC 8058), and so are
 * an invitation link and a series confirmation link: their tokens never reach the log. Nor does a
 * chat session id (README "Live conversation": for an anonymous visitor it is the conversation's
 * only secret): anything after /api/sdk/conversations/ but a known suffix is masked.
 */
export function loggedPath(path: string): string {
  if (path.startsWith("/u/")) return "/u/[token]";
  if (path.startsWith("/invite/")) return "/invite/[token]";
  if (path.startsWith("/reset-password/")) return "/reset-password/[token]";
  if (path.startsWith("/series/confirm/")) return "/series/confirm/[token]";
  if (path.startsWith(SESSION_PATH))
    return `${SESSION_PATH}[session_id]${path.endsWith("/events") && path.indexOf("/", SESSION_PATH.length) === path.length - 7 ? "/events" : ""}`;
  return path;
}

function pathOf(target: string): string {
  try {
    return new URL(target, "http://host.invalid").pathname;
  } catch {
    return `/${target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*\/?/i, "").split(/[?#]/)[0]}`;
  }
}
const PATH_CONTROL = /%[01][0-9a-f]|%7f|[\x00-\x1f\x7f]/i;
const QUERY_CONTROL = /%(0[0-8bcef]|1[0-9a-f])|[\x00-\x08\x0b\x0c\x0e-\x1f]/i;

/**
 * What every listener answers for an error that escaped its handler (Bun.serve's `error`): a known
 * error in our shape, anything else 500 `internal_error` with no detail — never Bun's development
 * error page, which lists source paths and lines (every listener also passes `development: false`).
 */
export function listenerError(log: Pick<Logger, "error">): (error: Error) => Response {
  return (error) => {
    const known = knownError(error);
    if (known) return known.toResponse(crypto.randomUUID());
    log.error("unhandled server error", { error });
    return new Response(JSON.stringify({ error: { code: "internal_error", message: "Something went wrong on our side." } }), {
      status: 500,
      headers: { "content-type": "application/json" },
    });
  };
}

export function createHandler(
  fetch: (request: Request) => Response | Promise<Response>,
  options: { log: Logger; trustProxy: boolean; baseUrl?: string; metrics?: Metrics },
): Handler {
  const baseUrl = options.baseUrl ? new URL(options.baseUrl) : null;
  return async (request, server) => {
    const started = performance.now();
    const given = request.headers.get("x-request-id");
    const id = given && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    setRequestMeta(request, { id, ip: clientIp(request, server, options.trustProxy), server });
    const refused = refusal(request, baseUrl);
    const response = refused ? answerRefusal(refused, request, id, baseUrl) : await fetch(request);
    response.headers.set("x-request-id", id);
    // @elysiajs/cors marks every response `Vary: *`, which forbids any cache from reusing it
    // (RFC 9111 section 4.1) and so voids `Cache-Control: public` on discovery documents. With
    // `Access-Control-Allow-Origin: *` the answer does not vary by Origin at all.
    if (response.headers.get("vary") === "*") response.headers.delete("vary");
    const path = pathOf(request.url);
    options.log.info("request", {
      request_id: id,
      method: request.method,
      path: loggedPath(path),
      status: response.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    });
    // Labelled by the route template, never the path: a path carries ids and tokens.
    options.metrics?.httpRequest(request.method, requestMeta(request).route ?? "unmatched", response.status, (performance.now() - started) / 1000);
    return response;
  };
}

/** A browser asking for a page on the wrong address gets a page that links to the right one. */
function answerRefusal(refused: AppError, request: Request, id: string, baseUrl: URL | null): Response {
  if (refused.status !== 421 || !baseUrl || !request.headers.get("accept")?.includes("text/html")) return refused.toResponse(id);
  return page(
    "Wrong address",
    html`<h1>Wrong address</h1>
<p class="error" role="alert">${refused.message}</p>
<p><a href="${baseUrl.origin}/">Continue to ${baseUrl.origin}</a></p>`,
    { status: 421 },
  );
}

function refusal(request: Request, baseUrl: URL | null): AppError | null {
  const host = badHost(request);
  if (host !== null)
    return AppError.badRequest(`${host} Send Host: <name>[:<port>] (RFC 9112 section 3.2).`, [{ path: "/headers/host", message: "must be host[:port]" }]);
  const misdirected = baseUrl ? misdirectedHost(request, baseUrl) : null;
  if (misdirected !== null) {
    return new AppError(
      421,
      "misdirected_request",
      `This server answers for ${baseUrl!.host} (its BASE_URL) or a loopback address, ` +
        `not for ${JSON.stringify(misdirected.slice(0, 255))}. Use ${baseUrl!.origin}, or set BASE_URL to the address you use.`,
    );
  }
  const url = request.url;
  const queryAt = url.indexOf("?");
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (PATH_CONTROL.test(path)) return AppError.badRequest("The request path may not contain control characters.");
  if (queryAt !== -1 && QUERY_CONTROL.test(url.slice(queryAt))) {
    return AppError.badRequest("The query string may not contain control characters other than tab, line feed and carriage return.");
  }
  return null;
}
