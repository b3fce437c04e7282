// Per-request facts the outer handler (src/http/handler.ts) learns before routing: the request id
// and the client address. Kept on the Request object itself (under a symbol), not in a global.
import type { Server } from "bun";

export interface RequestMeta {
  id: string;
  ip: string;
  /** The Bun server that accepted the request (absent in-process): a long stream lifts its idle timeout with it. */
  server?: Server<unknown>;
  /** The route template that matched (`/api/tickets/:number`), set by the app once routing is done: the metrics' label. */
  route?: string;
}

const META = Symbol("svc-agents.request-meta");
type WithMeta = Request & { [META]?: RequestMeta };

export function setRequestMeta(request: Request, meta: RequestMeta): void {
  (request as WithMeta)[META] = meta;
}

export function requestMeta(request: Request): RequestMeta {
  return ((request as WithMeta)[META] ??= { id: crypto.randomUUID(), ip: "unknown" });
}

/**
 * Bun's `server.timeout(request, 0)`: no idle cut for this one request (a long stream; Bun cuts a
 * request that sends nothing for the server's idleTimeout). In-process requests have no server.
 */
export function liftIdleTimeout(request: Request) {
  requestMeta(request).server?.timeout(request, 0);
}
