// `/api/mcp`: the tool server (docs/interface.md 4.2, docs/interface.md A.1–A.6). Stateless: every POST carries a
// Bearer access token and one JSON-RPC message or a batch; answers are JSON. This file is the
// HTTP edge only — authentication, protocol version, body — and hands the body to handleRpc.
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError, knownError, RPC } from "../errors.ts";
import { RawBody } from "../http/body.ts";
import { parseJsonBounded } from "../http/json.ts";
import { DEFAULT_SCOPES } from "../oauth/scopes.ts";
import { jsonResponse } from "../kit/json-response.ts";
import { bearerToken } from "../kit/bearer.ts";
import { createStageTimer } from "../kit/stage-timer.ts";
import { authorizationServerMetadataUrl, bearerChallenge, protectedResourceMetadataUrl, resourceOf } from "../oauth/metadata.ts";
import { handleRpc, METHODS, PROTOCOL_VERSION, type RpcAnswer, rpcFailure, SERVER_INFO } from "./rpc.ts";

export function descriptor(deps: Pick<Deps, "config">) {
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

/** docs/interface.md A.1: an Accept naming only text/event-stream is the SDK's SSE stream request. */
function wantsOnlyEventStream(accept: string | null): boolean {
  if (!accept) return false;
  const types = accept
    .split(",")
    .map((t) => t.split(";")[0]!.trim().toLowerCase())
    .filter(Boolean);
  return types.length > 0 && types.every((t) => t === "text/event-stream");
}

/**
 * The `scope` a 401 names (2025-11-25 authorization, scope selection): the least the request
 * needs, so that a client that follows it asks a person for no more. A tools/call of a built-in
 * tool: its scope; of a custom or connector action: actions:read (a write one steps up with a
 * 403); ping and notifications need none; anything else (initialize, tools/list): the read-only
 * default a client asking for nothing gets.
 */
function scopeHint(deps: Pick<Deps, "tools">, body: RawBody | undefined): string | undefined {
  let message: unknown;
  try {
    message = body && !body.error ? parseJsonBounded(body.text) : undefined;
  } catch {
    message = undefined;
  }
  const m = typeof message === "object" && message !== null && !Array.isArray(message) ? (message as Record<string, unknown>) : undefined;
  if (m && (m.method === "ping" || !("id" in m))) return undefined;
  const name = m?.method === "tools/call" ? (m.params as Record<string, unknown> | undefined)?.name : undefined;
  if (typeof name === "string") {
    const builtin = deps.tools.scopeFor?.(name);
    if (builtin) return builtin;
    if (name.startsWith("custom.") || name.startsWith("mcp.")) return "actions:read";
  }
  return DEFAULT_SCOPES.join(" ");
}

export function mcpRoutes(deps: Pick<Deps, "accessTokens" | "config" | "db" | "limiter" | "log" | "now" | "tools">) {
  const answer = ({ status, headers, body }: RpcAnswer) => (body === null ? new Response(null, { status, headers }) : jsonResponse(body, status, headers));
  // Interface docs/interface.md 5, docs/interface.md A.5: 401, -32001, and a challenge naming the error only when a token was sent.
  const unauthorized = (body: unknown, error?: { error: "invalid_token"; description: string }) =>
    answer(
      rpcFailure(
        new AppError(
          401,
          "unauthorized",
          error ? `Unauthorized: ${error.description}` : "Unauthorized: send an OAuth access token as a Bearer token.",
          undefined,
          {
            "www-authenticate": bearerChallenge(deps.config, error, scopeHint(deps, body instanceof RawBody ? body : undefined)),
          },
        ),
      ),
    );

  return new Elysia({ name: "mcp" })
    .get("/api/mcp", ({ request }) =>
      wantsOnlyEventStream(request.headers.get("accept"))
        ? new Response(null, { status: 405, headers: { allow: "POST" } })
        : jsonResponse(descriptor(deps), 200, { "cache-control": "public, max-age=300" }),
    )
    .delete("/api/mcp", () => new Response(null, { status: 405, headers: { allow: "GET, POST" } }))
    .post("/api/mcp", async ({ body, request }) => {
      const timer = deps.config.serverTiming ? createStageTimer() : undefined;
      const authorization = request.headers.get("authorization");
      const bearer = bearerToken(authorization);
      if (!bearer)
        return unauthorized(body, authorization ? { error: "invalid_token", description: "the Authorization header is not a Bearer token." } : undefined);
      // The database gone while checking the token: the tool server's own shape (503, -32603 retryable), not the SDK's.
      const token = await deps.accessTokens.verify(bearer).catch((error: unknown) => {
        const known = knownError(error);
        if (known?.status === 503) return known;
        throw error;
      });
      if (token instanceof AppError) return answer(rpcFailure(token));
      if (!token) return unauthorized(body, { error: "invalid_token", description: "the access token is invalid, expired or revoked." });
      timer?.mark("auth");

      // The protocol version (header, or 2026-07-28 `_meta`) is read with the body: handleRpc.
      const raw = body instanceof RawBody ? body : new RawBody("");
      // Too large (413) or not readable: -32600 with the body reader's status.
      if (raw.error)
        return answer(
          rpcFailure(new AppError(raw.error.status, raw.error.code, raw.error.message, undefined, raw.error.headers, { rpcCode: RPC.INVALID_REQUEST })),
        );
      const answered = await handleRpc(deps, raw.text, token, request.headers, timer);
      if (timer) {
        timer.mark("rpc");
        answered.headers = { ...answered.headers, "server-timing": timer.header() };
      }
      return answer(answered);
    });
}
