// Per-request facts the outer handler (src/http/handler.ts) learns before routing: the request id
// and the client address. Kept beside the Request object rather than in a global.
import type { Server } from "bun";

export interface RequestMeta {
  id: string;
  ip: string;
  /** The Bun server that accepted the request (absent in-process): a long stream lifts its idle timeout with it. */
  server?: Server<unknown>;
}

const metas = new WeakMap<Request, RequestMeta>();

export function setRequestMeta(request: Request, meta: RequestMeta): void {
  metas.set(request, meta);
}

export function requestMeta(request: Request): RequestMeta {
  let meta = metas.get(request);
  if (!meta) {
    meta = { id: crypto.randomUUID(), ip: "unknown" };
    metas.set(request, meta);
  }
  return meta;
}
