// Connector management for the dashboard (docs/interface.md 4.1): /api/integrations/mcp/servers.
// integrations:manage connects, refreshes and disconnects; integrations:view lists.
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { memberActor } from "../kit/actor.ts";
import { AUTH_METHODS, CONNECTOR_LIMITS } from "./rules.ts";
import { connect, disconnect, listConnectors, refreshConnector } from "./service.ts";

const AuthMethod = t.Union(AUTH_METHODS.map((m) => t.Literal(m)));
// Field-level checks (which fields, lengths) are done by the service so the error names the field.
const Credentials = t.Record(t.String({ maxLength: 64 }), t.String());

const Status = t.Union([t.Literal("pending"), t.Literal("connected"), t.Literal("error")]);
/** A connector as the API answers it: never its credentials; the server's JSON shown whole. */
const ConnectorView = t.Object({
  id: t.String(),
  name: t.String(),
  slug: t.String(),
  url: t.String(),
  auth_method: t.Union([t.Literal("none"), t.Literal("bearer"), t.Literal("oauth2")]),
  status: Status,
  last_discovered_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  last_error: t.Union([t.String(), t.Null()]),
  tool_count: t.Integer(),
  discovered_tools: t.Array(
    t.Object({
      name: t.String(),
      action_id: t.String({ description: "mcp.<slug>.<tool>" }),
      description: t.String(),
      input_schema: t.Record(t.String(), t.Unknown()),
      destructive: t.Boolean(),
      // The server's other hints as it gave them (absent: MCP's defaults); never upgraded by us.
      read_only: t.Boolean(),
      idempotent: t.Boolean(),
      open_world: t.Boolean(),
      title: t.Optional(t.String()),
      output_schema: t.Optional(t.Record(t.String(), t.Unknown())),
    }),
  ),
  dropped_tools: t.Array(t.Object({ name: t.String(), reason: t.String() }, { additionalProperties: true })),
  icon_url: t.Union([t.String(), t.Null()]),
  server_info: t.Record(t.String(), t.Unknown()),
  created_at: t.String({ format: "date-time" }),
});

export function connectorRoutes(deps: Pick<Deps, "cipher" | "config" | "connectorRefreshes" | "db" | "guard" | "log" | "now" | "timers" | "tools">) {
  return new Elysia({ name: "connectors" })
    .get(
      "/api/integrations/mcp/servers",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "integrations:view");
        return listConnectors(deps, orgId);
      },
      {
        response: {
          200: t.Object({ enabled: t.Boolean({ description: "Whether the org's mcp_external_servers flag is on." }), servers: t.Array(ConnectorView) }),
        },
        detail: {
          summary: "The org's connectors to external MCP servers with their status and tools (integrations:view)",
          tags: ["Connectors"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .post(
      "/api/integrations/mcp/servers",
      async ({ body, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "integrations:manage");
        const created = await connect(deps, orgId, memberActor(principal.member.id), body);
        return new Response(JSON.stringify(created), { status: 201, headers: { "content-type": "application/json" } });
      },
      {
        body: t.Object({
          name: t.String({ maxLength: CONNECTOR_LIMITS.name }),
          slug: t.String({ maxLength: 64 }),
          url: t.String({ maxLength: CONNECTOR_LIMITS.url }),
          auth_method: AuthMethod,
          credentials: t.Optional(Credentials),
        }),
        response: { 201: t.Object({ id: t.String(), status: Status, tool_count: t.Integer(), error: t.Union([t.String(), t.Null()]) }) },
        detail: {
          summary: "Connect an external MCP server (needs the mcp_external_servers flag) (integrations:manage)",
          tags: ["Connectors"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .patch(
      "/api/integrations/mcp/servers/:id",
      async ({ body, params, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "integrations:manage");
        return refreshConnector(deps, orgId, memberActor(principal.member.id), params.id, body ?? {});
      },
      {
        body: t.Optional(
          t.Object({
            name: t.Optional(t.String({ maxLength: CONNECTOR_LIMITS.name })),
            auth_method: t.Optional(AuthMethod),
            credentials: t.Optional(Credentials),
          }),
        ),
        response: { 200: ConnectorView },
        detail: {
          summary: "Rename a connector, change its credentials, or refresh its tools (integrations:manage)",
          tags: ["Connectors"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .delete(
      "/api/integrations/mcp/servers/:id",
      async ({ params, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "integrations:manage");
        await disconnect(deps, orgId, memberActor(principal.member.id), params.id);
        return new Response(null, { status: 204 });
      },
      {
        response: { 204: t.Null({ description: "No content" }) },
        detail: { summary: "Disconnect a connector (integrations:manage)", tags: ["Connectors"], security: [{ dashboard: [] }] },
      },
    );
}
