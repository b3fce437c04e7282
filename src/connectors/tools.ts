// Connector tools as registry tools: `mcp.<slug>.<tool>`, behind the org's mcp_external_servers
// flag, off in agent toggles until switched on, unavailable while the connector is in error.
import type { ToolDefinition, ToolProvider } from "../tools/types.ts";
import { callConnectorTool, type HandshakeSlot, upstreamBinding } from "./calls.ts";
import { liveConnectors } from "./service.ts";

export const connectorTools: ToolProvider = async (deps, orgId) => {
  const rows = await liveConnectors(deps, orgId);
  return rows.flatMap((row) => {
    // One per connector per snapshot: a sessionless server's handshake, reused by its read-only
    // and idempotent calls until the snapshot is rebuilt (src/connectors/calls.ts).
    const slot: HandshakeSlot = {};
    return row.discoveredTools.map(
      (tool): ToolDefinition => ({
        name: `mcp.${row.slug}.${tool.name}`,
        description: tool.description,
        inputSchema: tool.inputSchema as ToolDefinition["inputSchema"],
        destructive: tool.destructive,
        // The server's own hints, never upgraded: read-only only when it said so.
        title: tool.title ?? tool.name,
        readOnly: tool.readOnly === true,
        idempotent: tool.idempotent === true,
        openWorld: tool.openWorld !== false,
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema as ToolDefinition["inputSchema"] } : {}),
        scope: tool.destructive ? "actions:write" : "actions:read",
        source: { kind: "connector", id: row.id, label: row.name },
        defaultEnabled: false,
        requiresFlag: "mcp_external_servers",
        sourceDisabled: row.status === "connected" ? undefined : `the connector ${row.name} is in error: ${row.lastError ?? "unknown"}`,
        execute: (ctx, args) => callConnectorTool(ctx.deps, row, tool, args, upstreamBinding(ctx), slot),
      }),
    );
  });
};
