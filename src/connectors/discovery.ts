// Discovery and the connector status machine (docs/interface.md 2.1, 3): initialize + tools/list (+
// icon) under the 15 s deadline replaces the tool snapshot and sets `connected`; any failure of
// the server sets `error` with a message for the dashboard. Either way the next scheduled
// discovery is one interval away. Never throws for the server's failures.
import { and, eq } from "drizzle-orm";
import { connectors, type DiscoveredTool } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { messageOf } from "../errors.ts";
import { live } from "../kit/rows.ts";
import { isTimeout } from "../kit/timeouts.ts";
import { forgetActions } from "../tools/toggles.ts";
import { type ConnectorRow, withCredentials } from "./credentials.ts";
import { deriveIcon } from "./icons.ts";
import { McpClientError, McpSession } from "./mcp-client.ts";
import { listAllTools } from "./tool-list.ts";
import { CONNECTOR_LIMITS, classifyTools } from "./rules.ts";
import { withConnectorStatusEvent } from "../webhooks/emit.ts";

/** What the dashboard (or the tool result) says about a failed discovery or call: never internals. */
export function failureText(error: unknown, what: "discovery" | "call"): string {
  if (error instanceof McpClientError) return error.message;
  if (isTimeout(error)) return "the server did not answer before the deadline";
  return `the ${what} failed`;
}

export async function discover(
  deps: Pick<Deps, "cipher" | "config" | "connectorRefreshes" | "db" | "guard" | "log" | "now" | "timers" | "tools">,
  row: ConnectorRow,
): Promise<ConnectorRow> {
  const signal = deps.timers.deadline(CONNECTOR_LIMITS.discoveryMs);
  const now = () => deps.now();
  const nextDiscoveryAt = () => new Date(now().getTime() + deps.config.connectorDiscoveryIntervalSeconds * 1000);
  try {
    const { listed, serverInfo, protocolVersion } = await withCredentials(deps, row, signal, async (headers) => {
      const session = await McpSession.open({ url: row.url, authHeaders: headers, guard: deps.guard, signal });
      try {
        return { listed: await listAllTools(session), serverInfo: session.serverInfo, protocolVersion: session.protocolVersion };
      } finally {
        await session.close();
      }
    });
    const { tools, dropped } = classifyTools(listed);
    for (const d of dropped) deps.log.warn("connector tool dropped", { connector_id: row.id, tool: d.name, reason: d.reason });
    const iconUrl = await deriveIcon(row.url, serverInfo, deps.guard);
    // webhooks: connector.status_changed commits with the status it announces
    const [updated] = await deps.db.transaction(async (tx) =>
      withConnectorStatusEvent(
        tx,
        row,
        await tx
          .update(connectors)
          .set({
            status: "connected",
            lastError: null,
            lastDiscoveredAt: now(),
            discoveredTools: tools,
            droppedTools: dropped,
            serverInfo: { name: serverInfo.name, version: serverInfo.version, protocolVersion },
            iconUrl,
            nextDiscoveryAt: nextDiscoveryAt(),
            updatedAt: now(),
          })
          .where(and(eq(connectors.id, row.id), live(connectors)))
          .returning(),
      ),
    );
    await forgetRemovedToggles(deps, row, tools);
    deps.tools.invalidate(row.orgId); // the tool list and each tool's availability follow the snapshot
    return updated ?? row;
  } catch (error) {
    if (!(error instanceof McpClientError) && !isTimeout(error))
      deps.log.error("connector discovery crashed", { connector_id: row.id, error: messageOf(error) });
    const [updated] = await deps.db.transaction(async (tx) =>
      withConnectorStatusEvent(
        tx,
        row,
        await tx
          .update(connectors)
          .set({ status: "error", lastError: failureText(error, "discovery"), lastDiscoveredAt: now(), nextDiscoveryAt: nextDiscoveryAt(), updatedAt: now() })
          .where(and(eq(connectors.id, row.id), live(connectors)))
          .returning(),
      ),
    );
    deps.tools.invalidate(row.orgId);
    return updated ?? row;
  }
}

/** Toggles of tools the server no longer lists go, so a tool that comes back starts disabled again. */
export async function forgetRemovedToggles(deps: Pick<Deps, "db" | "tools">, row: ConnectorRow, keep: DiscoveredTool[] | null) {
  await forgetActions(deps, row.orgId, `mcp.${row.slug}.`, new Set((keep ?? []).map((t) => `mcp.${row.slug}.${t.name}`)));
}
