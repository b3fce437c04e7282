// The help centre at the root of an org's own host name: a request whose Host is not this
// service's (BASE_URL) host and is the verified custom domain of an enabled help centre is
// answered by that help centre; any other Host goes on to the app as before, so the host rules of
// src/http/handler.ts (400 for a malformed Host, 421 for a foreign one while BASE_URL is loopback)
// and every other route stay as they are. A domain whose TXT record was never verified is never
// served (src/helpcentre/settings.ts verifyDomain).
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { requestMeta } from "../http/request-meta.ts";
import { readBodyCapped } from "../net/capped-body.ts";
import { createMediaCache } from "./media.ts";
import { loadSite, serveHelp } from "./serve.ts";
import { helpCentreByDomain } from "./settings.ts";

/** A vote form is a few bytes; the default body cap of every other route (src/http/body.ts). */
const FORM_BYTES = 16 * 1024;

export function customDomainFront(
  deps: Pick<Deps, "config" | "db" | "guard" | "knowledge" | "limiter" | "log" | "now" | "passages" | "statements" | "texts">,
  next: (request: Request) => Response | Promise<Response>,
): (request: Request) => Promise<Response> {
  const ours = new URL(deps.config.baseUrl).hostname.toLowerCase();
  const media = createMediaCache();
  return async (request) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return next(request);
    }
    const host = url.hostname.toLowerCase().replace(/\.$/, "");
    if (host === ours || !host.includes(".")) return next(request);
    const row = await helpCentreByDomain(deps, host);
    const site = row ? await loadSite(deps, row, true) : null;
    if (!site) return next(request);
    let form: URLSearchParams | undefined;
    if (request.method === "POST") {
      const bytes = await readBodyCapped(request, FORM_BYTES);
      if (bytes === null)
        return new AppError(413, "payload_too_large", `The request body is larger than ${FORM_BYTES} bytes.`).toResponse(requestMeta(request).id); // not for customers: the API's error shape
      form = new URLSearchParams(new TextDecoder().decode(bytes));
    } else if (request.method !== "GET" && request.method !== "HEAD") return next(request);
    return serveHelp(deps, media, site, {
      method: request.method === "HEAD" ? "GET" : request.method,
      rest: url.pathname,
      query: url.searchParams,
      form,
      request,
    });
  };
}
