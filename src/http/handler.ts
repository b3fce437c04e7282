// The outermost layer, in front of the Elysia app: assigns the request id (a well-formed
// X-Request-Id is kept, otherwise one is generated) and the client address, echoes the id, and
// writes one log line per request. Paths are logged without their query string, so values such
// as OAuth codes never reach the log.
import type { Server } from "bun";
import type { Logger } from "../log.ts";
import { setRequestMeta } from "./request-meta.ts";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export type Handler = (request: Request, server?: Server<unknown>) => Promise<Response>;

export function clientIp(request: Request, server: Server<unknown> | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const first = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (first) return first;
  }
  return server?.requestIP(request)?.address ?? "unknown";
}

export function createHandler(
  fetch: (request: Request) => Response | Promise<Response>,
  options: { log: Logger; trustProxy: boolean },
): Handler {
  return async (request, server) => {
    const started = performance.now();
    const given = request.headers.get("x-request-id");
    const id = given && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    setRequestMeta(request, { id, ip: clientIp(request, server, options.trustProxy) });
    const response = await fetch(request);
    response.headers.set("x-request-id", id);
    // @elysiajs/cors marks every response `Vary: *`, which forbids any cache from reusing it
    // (RFC 9111 §4.1) and so voids `Cache-Control: public` on discovery documents. With
    // `Access-Control-Allow-Origin: *` the answer does not vary by Origin at all.
    if (response.headers.get("vary") === "*") response.headers.delete("vary");
    const url = new URL(request.url);
    options.log.info("request", {
      request_id: id,
      method: request.method,
      path: url.pathname,
      status: response.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    });
    return response;
  };
}
