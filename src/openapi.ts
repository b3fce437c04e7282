// GET /api/openapi.json: an OpenAPI 3.1 document generated from the routes themselves — the same
// TypeBox schemas Elysia validates requests with (and, where a route declares them, responses) —
// so the document cannot drift from what the server enforces. TypeBox emits JSON Schema 2020-12,
// which OpenAPI 3.1 uses as is. Two translations: free-form objects (src/http/json.ts FreeForm),
// whose custom kind carries its bounds as `maxDepth`/`maxBytes` and becomes an object schema with
// `x-max-depth` / `x-max-bytes`; and Elysia's numbers (`t.Integer`, `t.Numeric`), which are a union
// with a numeric string so that query strings and forms can carry them, and are described once as
// the number they decode to (see `numberOnce`).
import { type AnyElysia, Elysia } from "elysia";
import viewerCss from "../node_modules/swagger-ui-dist/swagger-ui.css" with { type: "file" };
import viewerScript from "../node_modules/swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import type { Deps } from "./deps.ts";
import { webhookOperations } from "./webhooks/openapi.ts";

type Route = AnyElysia["routes"][number];
type Json = Record<string, unknown>;

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  serverUrl: string;
}

/** A TypeBox schema as plain JSON Schema: symbols dropped, free-form objects spelled out. */
export function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (schema === null || typeof schema !== "object") return schema;
  const s = schema as Json;
  if (typeof s.maxDepth === "number" && typeof s.maxBytes === "number" && s.type === undefined) {
    return { type: "object", additionalProperties: true, description: s.description, "x-max-depth": s.maxDepth, "x-max-bytes": s.maxBytes };
  }
  const number = numberOnce(s);
  if (number) return number;
  const out: Json = {};
  for (const [key, value] of Object.entries(s)) out[key] = toJsonSchema(value);
  return out;
}

/**
 * Elysia's `t.Integer(p)` is `anyOf [string (format integer), integer(p)]` carrying `p` on the union
 * too, and `t.Numeric(p)` the same with `number`: what a generated client would type
 * `string | number`, with the description twice. A JSON body carries a JSON number and a query
 * parameter's schema describes the value, so the document names the number once: the numeric
 * member with its bounds and description. `t.Numeric({ multipleOf: 1 })` (a whole-number query
 * parameter) is `integer`.
 */
function numberOnce(s: Json): Json | null {
  const members = s.anyOf;
  if (!Array.isArray(members) || members.length !== 2) return null;
  const text = members.find((m: Json) => m?.type === "string" && (m.format === "integer" || m.format === "numeric"));
  const number = members.find((m: Json) => m?.type === "integer" || m?.type === "number") as Json | undefined;
  if (!text || !number) return null;
  const { anyOf: _union, ...outer } = s;
  const out: Json = { ...outer, ...(toJsonSchema(number) as Json) };
  if (out.type === "number" && out.multipleOf === 1) {
    out.type = "integer";
    delete out.multipleOf;
  }
  return out;
}

const STATUS_TEXT: Record<string, string> = {
  "200": "OK",
  "201": "Created",
  "202": "Accepted",
  "204": "No content",
  "400": "Invalid request (validation failure, named per field in `error.details`)",
  "401": "Missing or invalid credentials",
  "403": "Refused (identity verification failed, origin not allowed, or a role is missing)",
  "404": "Not found",
  "409": "Conflict",
  "429": "Rate limited; see Retry-After",
};

function operation(route: Route): Json {
  const hooks = (route.hooks ?? {}) as Json;
  const detail = (hooks.detail ?? {}) as Json;
  const parameters: Json[] = [];
  for (const name of route.path.match(/:([A-Za-z_]+)/g) ?? []) parameters.push({ name: name.slice(1), in: "path", required: true, schema: { type: "string" } });
  const query = hooks.query as Json | undefined;
  if (query?.properties) {
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries(query.properties as Json))
      parameters.push({
        name,
        in: "query",
        required: required.has(name),
        schema: toJsonSchema(schema),
        ...((schema as Json).description ? { description: (schema as Json).description } : {}),
      });
  }
  const responses: Json = {};
  const declared = hooks.response as Json | undefined;
  const byStatus: Json =
    declared && (declared as Json).type === undefined && !(declared as Json).anyOf ? declared : declared ? { 200: declared } : { 200: undefined };
  for (const [status, schema] of Object.entries(byStatus))
    responses[status] = {
      description: STATUS_TEXT[status] ?? status,
      ...(schema && status !== "204" ? { content: { "application/json": { schema: toJsonSchema(schema) } } } : {}),
    };
  // A body that is not JSON (an event stream, CSV, audio) is described by the route itself
  // (src/http/media-response.ts); it has no TypeBox schema to check it against.
  for (const [status, described] of Object.entries((detail.responses ?? {}) as Json)) responses[status] = toJsonSchema(described);
  return {
    ...(detail.summary ? { summary: detail.summary } : {}),
    ...(detail.description ? { description: detail.description } : {}),
    ...(detail.tags ? { tags: detail.tags } : {}),
    ...(detail.security ? { security: detail.security } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(hooks.body ? { requestBody: { required: true, content: { "application/json": { schema: toJsonSchema(hooks.body) } } } } : {}),
    // A route that reads its body raw (no TypeBox schema) describes it itself, e.g. message/rfc822.
    ...(!hooks.body && detail.requestBody ? { requestBody: detail.requestBody } : {}),
    responses,
  };
}

/** The document for `routes` (those with a method other than OPTIONS/HEAD), paths sorted. */
export function openapiDocument(routes: readonly Route[], info: OpenApiInfo): Json {
  const paths: Record<string, Json> = {};
  for (const route of [...routes].sort((a, b) => a.path.localeCompare(b.path))) {
    const method = route.method.toLowerCase();
    if (method === "options" || method === "head" || method === "all") continue;
    const path = route.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    (paths[path] ??= {})[method] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: info.serverUrl }],
    paths,
    // Outbound webhook payloads (src/webhooks/openapi.ts), their numbers described once as above.
    webhooks: toJsonSchema(webhookOperations()),
    components: {
      securitySchemes: {
        widgetKey: { type: "http", scheme: "bearer", bearerFormat: "ab_live_…", description: "The org's publishable widget key (docs/interface.md 5)." },
        dashboard: {
          type: "http",
          scheme: "bearer",
          description: "A dashboard session token (POST /api/auth/session), or the session cookie from the same origin.",
        },
        inboundSecret: { type: "http", scheme: "bearer", description: 'INBOUND_WEBHOOK_SECRET, for a mail relay (README "Email channel").' },
      },
    },
  };
}

/**
 * Whether a route belongs in the document: the JSON APIs under /api. The tool server (/api/mcp,
 * JSON-RPC with its own descriptor, docs/interface.md 4.2) and the OAuth endpoints (form-encoded, defined
 * by their RFCs and described by /.well-known/oauth-authorization-server) are left to their
 * standards; pages and assets are not APIs.
 */
export function documented(path: string): boolean {
  return path.startsWith("/api/") && path !== "/api/openapi.json" && path !== "/api/mcp" && !path.startsWith("/api/mcp/");
}

/**
 * GET /api/openapi.json over every route of the composed app (`routes` is read on first request,
 * when the app is complete), so a route added anywhere is in the document without editing it.
 */
export function openapiRoutes(deps: Pick<Deps, "config">, routes: () => readonly Route[]) {
  let document: unknown;
  return new Elysia({ name: "openapi" }).get("/api/openapi.json", ({ set }) => {
    document ??= openapiDocument(
      routes().filter((r) => documented(r.path)),
      {
        title: "svc-agents API",
        version: "1",
        description:
          "The public widget SDK (/api/sdk, widget key) and the dashboard API (dashboard session, roles per route). " +
          'Errors: {"error":{"code","message","details","request_id"}}. The tool server (/api/mcp) and the OAuth endpoints follow their own specifications.',
        serverUrl: deps.config.baseUrl,
      },
    );
    set.headers["cache-control"] = "public, max-age=300";
    return document;
  });
}

// GET /api/docs in a browser: the document above in Swagger UI (swagger-ui-dist), served from our
// origin — its files are embedded in the binary like PGlite's — under a CSP that allows nothing
// else: scripts and styles only from /assets/api-docs/, fetches only to our origin, no inline code
// (the viewer is started by a file of ours, not an inline script). `/api/docs` is also the
// knowledge base's JSON API (README "API reference"): a request that asks for HTML first (a
// browser's navigation) and carries no bearer token gets the viewer; any other keeps the API.
const VIEWER_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const VIEWER_INIT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#api-reference", deepLinking: true, docExpansion: "list", tagsSorter: "alpha", validatorUrl: null, tryItOutEnabled: false });
});
`;
const VIEWER_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>svc-agents API reference</title>
<link rel="stylesheet" href="/assets/api-docs/swagger-ui.css"></head>
<body><main id="api-reference"><p>The API reference needs JavaScript; the document itself is at <a href="/api/openapi.json">/api/openapi.json</a>.</p></main>
<script src="/assets/api-docs/swagger-ui-bundle.js"></script><script src="/assets/api-docs/init.js"></script></body>
</html>
`;

/** Whether a request to /api/docs is a browser asking for a page, not a client of the JSON API. */
export function wantsViewer(request: Request): boolean {
  if (request.method !== "GET" || request.headers.has("authorization")) return false;
  const accept = request.headers.get("accept") ?? "";
  const first = accept.split(",")[0]?.split(";")[0]?.trim().toLowerCase();
  return first === "text/html";
}

function asset(body: Blob | string, type: string): Response {
  return new Response(body, { headers: { "content-type": type, "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" } });
}

export function apiViewerRoutes() {
  return new Elysia({ name: "api-viewer" })
    .onRequest(({ request }) => {
      if (new URL(request.url).pathname !== "/api/docs" || !wantsViewer(request)) return;
      return new Response(VIEWER_PAGE, {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": VIEWER_CSP,
          "cache-control": "no-cache",
          "x-content-type-options": "nosniff",
          vary: "accept, authorization",
        },
      });
    })
    .get("/assets/api-docs/swagger-ui-bundle.js", () => asset(Bun.file(viewerScript), "text/javascript; charset=utf-8"), { detail: { hide: true } })
    .get("/assets/api-docs/swagger-ui.css", () => asset(Bun.file(viewerCss), "text/css; charset=utf-8"), { detail: { hide: true } })
    .get("/assets/api-docs/init.js", () => asset(VIEWER_INIT, "text/javascript; charset=utf-8"), { detail: { hide: true } });
}
