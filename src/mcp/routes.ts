// `/api/mcp`: the tool server (interface §4.2, INTEROP A.1–A.6). Stateless: every POST carries a
// Bearer access token and one JSON-RPC message or a batch; answers are JSON.
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { RawBody } from "../http/body.ts";
import { authorizationServerMetadataUrl, bearerChallenge, protectedResourceMetadataUrl, resourceOf } from "../oauth/metadata.ts";
import type { AccessVerifier } from "../oauth/token-cache.ts";
import type { Limiter } from "../ratelimit/leased.ts";
import type { Access, Registry } from "../tools/registry.ts";
import { failure, parseMessage, RPC, RpcError, type RpcResponse, success } from "./jsonrpc.ts";
import { dispatch, METHODS, PROTOCOL_VERSION, SERVER_INFO } from "./methods.ts";
import { chargeToken, methodClass, rateLimitHeaders } from "./rate-limit.ts";
import type { Taken } from "../ratelimit/fixed-window.ts";
import { messageOf } from "../errors.ts";
import { bearerToken } from "../kit/bearer.ts";
import { isKnownProtocolVersion, KNOWN_PROTOCOL_VERSIONS } from "../kit/mcp.ts";

function json(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

export function descriptor(deps: Deps) {
  return {
    name: SERVER_INFO.name,
    version: SERVER_INFO.version,
    protocolVersion: PROTOCOL_VERSION,
    transport: "http+jsonrpc",
    methods: [...METHODS],
    authentication: {
      type: "oauth2",
      authorization_server: authorizationServerMetadataUrl(deps.config),
      protected_resource_metadata: protectedResourceMetadataUrl(deps.config),
    },
    mcp_url: resourceOf(deps.config),
  };
}

/** INTEROP A.1: an Accept naming only text/event-stream is the SDK's SSE stream request. */
function wantsOnlyEventStream(accept: string | null): boolean {
  if (!accept) return false;
  const types = accept.split(",").map((t) => t.split(";")[0]!.trim().toLowerCase()).filter(Boolean);
  return types.length > 0 && types.every((t) => t === "text/event-stream");
}

export function mcpRoutes(deps: Deps, registry: Registry, verifier: AccessVerifier, limiter: Limiter) {
  const actionLimit = { limit: deps.config.actionRateLimitPerMinute, windowSeconds: 60 };
  const unauthorized = (error?: { error: "invalid_token"; description: string }) =>
    json(failure(null, RPC.UNAUTHORIZED, error ? `Unauthorized: ${error.description}` : "Unauthorized: send an OAuth access token as a Bearer token."), 401, {
      "www-authenticate": bearerChallenge(deps.config, error),
    });

  return new Elysia({ name: "mcp" })
    .get("/api/mcp", ({ request }) =>
      wantsOnlyEventStream(request.headers.get("accept"))
        ? new Response(null, { status: 405, headers: { allow: "POST" } })
        : json(descriptor(deps), 200, { "cache-control": "public, max-age=300" }),
    )
    .delete("/api/mcp", () => new Response(null, { status: 405, headers: { allow: "GET, POST" } }))
    .post("/api/mcp", async ({ body, request }) => {
      const authorization = request.headers.get("authorization");
      const bearer = bearerToken(authorization);
      if (!bearer) return unauthorized(authorization ? { error: "invalid_token", description: "the Authorization header is not a Bearer token." } : undefined);
      const token = await verifier.verify(bearer);
      if (!token) return unauthorized({ error: "invalid_token", description: "the access token is invalid, expired or revoked." });

      const version = request.headers.get("mcp-protocol-version");
      // Absent means 2025-03-26 (INTEROP A.3).
      if (version !== null && !isKnownProtocolVersion(version))
        return json(failure(null, RPC.INVALID_REQUEST, `Unsupported MCP-Protocol-Version ${version}; supported: ${KNOWN_PROTOCOL_VERSIONS.join(", ")}.`), 400);

      const raw = body instanceof RawBody ? body : new RawBody("");
      if (raw.error) return json(failure(null, RPC.INVALID_REQUEST, raw.error.message), raw.error.status);
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw.text);
      } catch {
        return json(failure(null, RPC.PARSE_ERROR, "Parse error: the body is not valid JSON."), 400);
      }
      const batch = Array.isArray(parsed);
      const messages = batch ? (parsed as unknown[]) : [parsed];
      if (batch && messages.length === 0) return json(failure(null, RPC.INVALID_REQUEST, "Invalid Request: an empty batch."), 400);

      let access: Promise<Access> | undefined;
      const ctx = { deps, registry, limiter, token, actionLimit, access: () => (access ??= registry.access(deps, { orgId: token.orgId, scopes: token.scopes, channel: "mcp", clientId: token.clientId, memberId: token.memberId })) };
      const responses: RpcResponse[] = [];
      let http: { status: number; headers?: Record<string, string> } | undefined;
      let tightest: Taken | undefined;
      for (const message of messages) {
        const checked = parseMessage(message);
        if ("error" in checked) {
          responses.push(checked.error);
          http ??= { status: 400 };
          continue;
        }
        const { request: rpc } = checked;
        const taken = await chargeToken(limiter, deps.config, token.tokenId, methodClass(rpc.method), deps.now());
        if (!tightest || taken.limit - taken.count < tightest.limit - tightest.count) tightest = taken;
        if (rpc.id === undefined) continue; // a notification: accepted, nothing to answer (INTEROP A.2)
        if (!taken.allowed) {
          responses.push(failure(rpc.id, RPC.FORBIDDEN, `Rate limit exceeded: ${taken.limit} ${methodClass(rpc.method) === "other" ? "requests" : rpc.method} per minute per token; retry in ${taken.retryAfter} s.`, { reason: "rate_limited" }));
          http ??= { status: 429, headers: { "retry-after": String(taken.retryAfter) } };
          continue;
        }
        try {
          responses.push(success(rpc.id, await dispatch(ctx, rpc)));
        } catch (error) {
          if (error instanceof RpcError) {
            responses.push(failure(rpc.id, error.code, error.message, error.data));
            if (error.http) http ??= error.http;
          } else {
            deps.log.error("tool server method failed", { method: rpc.method, error: messageOf(error) });
            responses.push(failure(rpc.id, RPC.INTERNAL_ERROR, "Internal error."));
          }
        }
      }
      const headers = tightest ? rateLimitHeaders(tightest) : {};
      if (responses.length === 0) return new Response(null, { status: 202, headers });
      // A batch answers 200 with every entry; a single message carries its own HTTP status.
      if (batch) return json(responses, 200, headers);
      return json(responses[0], http?.status ?? 200, { ...headers, ...http?.headers });
    });
}
