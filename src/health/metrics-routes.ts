// GET /metrics: the Prometheus text exposition of deps.metrics (src/metrics/registry.ts). Kept off
// the public port unless asked: with METRICS_TOKEN set it answers there to
// `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time) and is 401 otherwise; without
// it the public port has no such route (404). METRICS_PORT serves it on a listener of its own
// (`metricsListener`, started by src/server.ts), for a scraper on a private network.
import { Elysia } from "elysia";
import { constantTimeEqual } from "../crypto/tokens.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { createHandler, type Handler } from "../http/handler.ts";
import { requestMeta } from "../http/request-meta.ts";
import { bearerToken } from "../kit/bearer.ts";

export async function metricsResponse(deps: Pick<Deps, "metrics">): Promise<Response> {
  const { contentType, body } = await deps.metrics.exposition();
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
}

export function metricsRoutes(deps: Pick<Deps, "config" | "metrics">) {
  const token = deps.config.metricsToken;
  const app = new Elysia({ name: "metrics" });
  if (!token) return app;
  return app.get(
    "/metrics",
    ({ request }) => {
      const given = bearerToken(request.headers.get("authorization"));
      if (!given || !constantTimeEqual(given, token))
        throw new AppError(401, "unauthorized", "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.", undefined, {
          "www-authenticate": 'Bearer realm="metrics"',
        });
      return metricsResponse(deps);
    },
    { detail: { hide: true } },
  );
}

/**
 * The METRICS_PORT listener: GET /metrics without a token (the port is the access control), and
 * 404 for anything else, behind the main listener's outer handler, so a missing or malformed Host
 * is 400 in our error shape and every request has an id and a log line.
 */
export function metricsListener(deps: Pick<Deps, "config" | "log" | "metrics">): Handler {
  return createHandler(
    async (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/metrics" && (request.method === "GET" || request.method === "HEAD")) return metricsResponse(deps);
      return AppError.notFound().toResponse(requestMeta(request).id);
    },
    { log: deps.log, trustProxy: deps.config.trustProxy },
  );
}
