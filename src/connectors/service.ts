// Connectors: an org's third-party MCP servers (docs/interface.md 2.1, 3, docs/interface.md 4.1, docs/interface.md 7.3), the dashboard
// verbs. Connecting runs discovery synchronously (src/connectors/discovery.ts); every change is
// made by an actor and recorded in the activity log. Rules live in rules.ts, credentials in
// credentials.ts, calls in calls.ts, scheduled discovery in scheduler.ts.
import { and, eq } from "drizzle-orm";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { type ConnectorAuthMethod, connectors } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { flagEnabled } from "../tenancy/flags.ts";
import { isUuid } from "../kit/ids.ts";
import { live } from "../kit/rows.ts";
import { isSlug, SLUG_RULE } from "../kit/slugs.ts";
import { type ConnectorRow, encryptCredentials } from "./credentials.ts";
import { discover, forgetRemovedToggles } from "./discovery.ts";
import { checkConnectorUrl, checkCredentials } from "./rules.ts";

export interface ConnectInput {
  name: string;
  slug: string;
  url: string;
  auth_method: ConnectorAuthMethod;
  credentials?: Record<string, string>;
}

async function requireFlag(deps: Pick<Deps, "db">, orgId: string) {
  if (!(await flagEnabled(deps, orgId, "mcp_external_servers")))
    throw AppError.forbidden("Connecting MCP servers is not enabled for this organisation (feature flag mcp_external_servers).");
}

export function connectorView(row: ConnectorRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    url: row.url,
    auth_method: row.authMethod,
    status: row.status,
    last_discovered_at: row.lastDiscoveredAt?.toISOString() ?? null,
    last_error: row.lastError,
    tool_count: row.discoveredTools.length,
    discovered_tools: row.discoveredTools.map((t) => ({
      name: t.name,
      action_id: `mcp.${row.slug}.${t.name}`,
      description: t.description,
      input_schema: t.inputSchema,
      destructive: t.destructive,
      // The server's other hints, as it gave them (absent: MCP's defaults).
      read_only: t.readOnly === true,
      idempotent: t.idempotent === true,
      open_world: t.openWorld !== false,
      ...(t.title ? { title: t.title } : {}),
      ...(t.outputSchema ? { output_schema: t.outputSchema } : {}),
    })),
    dropped_tools: row.droppedTools,
    icon_url: row.iconUrl,
    server_info: row.serverInfo,
    created_at: row.createdAt.toISOString(),
  };
}

/** What the activity log keeps of a connector: never credentials, and of the URL only its host (a query may carry a key). */
function described(row: ConnectorRow) {
  return { name: row.name, slug: row.slug, host: new URL(row.url).host, auth_method: row.authMethod };
}

export async function connect(deps: Deps, orgId: string, actor: Actor, input: ConnectInput) {
  await requireFlag(deps, orgId);
  const problems = [
    ...(input.name.trim() === "" ? [{ path: "/name", message: "is required" }] : []),
    ...(isSlug(input.slug) ? [] : [{ path: "/slug", message: SLUG_RULE }]),
    ...(await checkConnectorUrl(deps, input.url)),
    ...checkCredentials(input.auth_method, input.credentials),
  ];
  if (problems.length > 0) throw AppError.badRequest("The connector is invalid.", problems);
  const id = crypto.randomUUID();
  let row: ConnectorRow;
  try {
    [row] = (await deps.db
      .insert(connectors)
      .values({
        id,
        orgId,
        name: input.name.trim(),
        slug: input.slug,
        url: input.url,
        authMethod: input.auth_method,
        credentials: encryptCredentials(deps, id, input.credentials ?? {}),
        createdAt: deps.now(),
        updatedAt: deps.now(),
      })
      .returning()) as [ConnectorRow];
  } catch (error) {
    if (String((error as { cause?: unknown }).cause ?? error).includes("connectors_org_slug_live_idx"))
      throw new AppError(409, "conflict", `A connector with slug ${input.slug} exists.`, [{ path: "/slug", message: "is already used by a connected server" }]);
    throw error;
  }
  await recordActivity(deps, { orgId, actor, action: "connector.created", objectType: "connector", objectId: id, summary: described(row) });
  const discovered = await discover(deps, row);
  return { id, status: discovered.status, tool_count: discovered.discoveredTools.length, error: discovered.lastError };
}

async function liveRow(deps: Pick<Deps, "db">, orgId: string, id: string): Promise<ConnectorRow> {
  if (!isUuid(id)) throw AppError.notFound("No such connector.");
  const [row] = await deps.db
    .select()
    .from(connectors)
    .where(and(eq(connectors.orgId, orgId), eq(connectors.id, id), live(connectors)));
  if (!row) throw AppError.notFound("No such connector.");
  return row;
}

export async function listConnectors(deps: Pick<Deps, "db">, orgId: string) {
  const rows = await deps.db
    .select()
    .from(connectors)
    .where(and(eq(connectors.orgId, orgId), live(connectors)))
    .orderBy(connectors.createdAt);
  return { enabled: await flagEnabled(deps, orgId, "mcp_external_servers"), servers: rows.map(connectorView) };
}

/** The org's live connectors, for the tool provider (src/connectors/tools.ts). */
export async function liveConnectors(deps: Pick<Deps, "db">, orgId: string): Promise<ConnectorRow[]> {
  return deps.db
    .select()
    .from(connectors)
    .where(and(eq(connectors.orgId, orgId), live(connectors)));
}

/** PATCH: optional new name or credentials (auth_method with them), then handshake and discovery again. */
export async function refreshConnector(
  deps: Deps,
  orgId: string,
  actor: Actor,
  id: string,
  patch: { name?: string; auth_method?: ConnectorAuthMethod; credentials?: Record<string, string> },
) {
  await requireFlag(deps, orgId);
  const row = await liveRow(deps, orgId, id);
  const method = patch.auth_method ?? row.authMethod;
  if (patch.auth_method !== undefined && patch.credentials === undefined && patch.auth_method !== "none")
    throw AppError.badRequest("Changing auth_method needs the new credentials.", [{ path: "/credentials", message: "is required with a new auth_method" }]);
  const problems = [
    ...(patch.name !== undefined && patch.name.trim() === "" ? [{ path: "/name", message: "must not be empty" }] : []),
    ...(patch.credentials !== undefined ? checkCredentials(method, patch.credentials) : []),
  ];
  if (problems.length > 0) throw AppError.badRequest("The connector is invalid.", problems);
  const newCredentials = patch.credentials !== undefined || patch.auth_method !== undefined;
  const [updated] = await deps.db
    .update(connectors)
    .set({
      ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
      ...(newCredentials ? { authMethod: method, credentials: encryptCredentials(deps, row.id, patch.credentials ?? {}) } : {}),
      updatedAt: deps.now(),
    })
    .where(eq(connectors.id, row.id))
    .returning();
  await recordActivity(deps, {
    orgId,
    actor,
    action: "connector.refreshed",
    objectType: "connector",
    objectId: row.id,
    summary: { before: described(row), after: described(updated!), credentials_replaced: newCredentials },
  });
  return connectorView(await discover(deps, updated!));
}

/** Soft delete: credentials emptied (the column, not just hidden), tools and toggles gone, row kept. */
export async function disconnect(deps: Deps, orgId: string, actor: Actor, id: string) {
  const row = await liveRow(deps, orgId, id);
  await deps.db.update(connectors).set({ deletedAt: deps.now(), credentials: {}, discoveredTools: [], updatedAt: deps.now() }).where(eq(connectors.id, row.id));
  await forgetRemovedToggles(deps, row, null);
  deps.tools.invalidate(orgId);
  await recordActivity(deps, { orgId, actor, action: "connector.deleted", objectType: "connector", objectId: row.id, summary: described(row) });
}
