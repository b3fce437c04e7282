// Connectors: an org's third-party MCP servers (interface §2.1, §3, §4.1, §7.3). Connecting
// runs discovery synchronously; discovery replaces the tool snapshot, re-derives the icon and
// sets status; calling a tool opens a session, calls it with the customer binding, and closes.
import { and, eq, inArray, like, sql } from "drizzle-orm";
import { agentActionToggles, agents, type ConnectorAuthMethod, connectors, type DiscoveredTool, type DroppedTool } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail, messageOf } from "../errors.ts";
import { flagEnabled } from "../kit/flags.ts";
import { isUuid } from "../kit/ids.ts";
import { live } from "../kit/rows.ts";
import { isSlug, SLUG_RULE } from "../kit/slugs.ts";
import { isTimeout } from "../kit/timeouts.ts";
import { BlockedUrlError, checkUrl } from "../net/guard.ts";
import type { ToolResult } from "../tools/types.ts";
import type { BoundCustomer } from "../workspace/customers.ts";
import { deriveIcon } from "./icons.ts";
import { listAllTools, McpClientError, McpSession } from "./mcp-client.ts";
import { type OAuthCredentials, RefreshFailed, refreshOAuthTokens } from "./oauth-refresh.ts";

export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const CONNECTOR_LIMITS = { name: 200, url: 2048, credentialField: 8000, discoveryMs: 15_000, callMs: 30_000, description: 4000 };
export const AUTH_METHODS: ConnectorAuthMethod[] = ["none", "bearer", "oauth2"];
/** Credential fields per auth method; the first of each is required. */
export const CREDENTIAL_FIELDS: Record<ConnectorAuthMethod, string[]> = {
  none: [],
  bearer: ["token"],
  oauth2: ["access_token", "refresh_token", "client_id", "client_secret"],
};

type Row = typeof connectors.$inferSelect;

export interface ConnectInput {
  name: string;
  slug: string;
  url: string;
  auth_method: ConnectorAuthMethod;
  credentials?: Record<string, string>;
}

const credentialContext = (id: string, field: string) => `connectors.credentials.${field}:${id}`;

function encryptCredentials(deps: Deps, id: string, credentials: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(credentials).map(([field, value]) => [field, deps.cipher.encrypt(value, credentialContext(id, field))]));
}

/** Decrypted only here, on the outbound path. */
function decryptCredentials(deps: Deps, row: Row): Record<string, string> {
  return Object.fromEntries(Object.entries(row.credentials).map(([field, value]) => [field, deps.cipher.decrypt(value, credentialContext(row.id, field))]));
}

function authHeaders(method: ConnectorAuthMethod, credentials: Record<string, string>): Record<string, string> {
  if (method === "bearer") return { authorization: `Bearer ${credentials.token}` };
  if (method === "oauth2") return { authorization: `Bearer ${credentials.access_token}` };
  return {};
}

async function requireFlag(deps: Deps, orgId: string) {
  if (!(await flagEnabled(deps, orgId, "mcp_external_servers"))) throw AppError.forbidden("Connecting MCP servers is not enabled for this organisation (feature flag mcp_external_servers).");
}

function checkCredentials(method: ConnectorAuthMethod, credentials: Record<string, string> | undefined): ErrorDetail[] {
  const allowed = CREDENTIAL_FIELDS[method];
  const given = credentials ?? {};
  const problems: ErrorDetail[] = [];
  for (const [field, value] of Object.entries(given)) {
    if (!allowed.includes(field)) problems.push({ path: `/credentials/${field}`, message: `is not a credential of auth_method ${method}` });
    else if (typeof value !== "string" || value.length === 0 || value.length > CONNECTOR_LIMITS.credentialField)
      problems.push({ path: `/credentials/${field}`, message: `must be 1 to ${CONNECTOR_LIMITS.credentialField} characters` });
  }
  const required = allowed[0];
  if (required && !given[required]) problems.push({ path: `/credentials/${required}`, message: `is required with auth_method ${method}` });
  return problems;
}

/**
 * Interface §7.3 / §8.2: a URL that is not https (loopback in development), or whose host is or
 * resolves to a blocked address, is refused at connect time. A name that does not resolve is
 * not refused here: the connector is saved and its discovery fails like any unreachable server.
 */
async function checkConnectorUrl(deps: Deps, url: string): Promise<ErrorDetail[]> {
  if (url.length > CONNECTOR_LIMITS.url) return [{ path: "/url", message: `must be at most ${CONNECTOR_LIMITS.url} characters` }];
  try {
    await checkUrl(url, deps.guard);
    return [];
  } catch (error) {
    if (error instanceof BlockedUrlError) return error.unresolvable ? [] : [{ path: "/url", message: error.message }];
    throw error;
  }
}

/** Tools from tools/list: names checked (§2.2), duplicates dropped, hints read as untrusted (INTEROP B.8). */
export function classifyTools(listed: unknown[]): { tools: DiscoveredTool[]; dropped: DroppedTool[] } {
  const tools: DiscoveredTool[] = [];
  const dropped: DroppedTool[] = [];
  const seen = new Set<string>();
  for (const raw of listed) {
    const t = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
    const name = typeof t.name === "string" ? t.name : "";
    const shown = name.slice(0, 100);
    if (!TOOL_NAME.test(name)) {
      dropped.push({ name: shown, reason: "the name must be 1 to 64 of A-Z a-z 0-9 _ -" });
      continue;
    }
    if (seen.has(name)) {
      dropped.push({ name, reason: "a tool with this name was listed earlier" });
      continue;
    }
    const schema = t.inputSchema as Record<string, unknown> | undefined;
    if (typeof schema !== "object" || schema === null || schema.type !== "object") {
      dropped.push({ name, reason: 'its inputSchema is not a JSON Schema of type "object"' });
      continue;
    }
    seen.add(name);
    const hints = (typeof t.annotations === "object" && t.annotations !== null ? t.annotations : {}) as Record<string, unknown>;
    const readOnly = hints.readOnlyHint === true;
    tools.push({
      name,
      description: typeof t.description === "string" ? t.description.slice(0, CONNECTOR_LIMITS.description) : "",
      inputSchema: schema,
      // MCP: destructiveHint defaults to true and matters only when readOnlyHint is false.
      destructive: readOnly ? false : hints.destructiveHint !== false,
      readOnly,
      idempotent: hints.idempotentHint === true,
    });
  }
  return { tools, dropped };
}

/** Refreshes in flight, by connector: parallel calls that all met a 401 share one refresh. */
const refreshing = new Map<string, Promise<Record<string, string>>>();

/**
 * New OAuth2 credentials after a 401 with `used`. If someone (this process or another) already
 * stored different tokens, those are used; otherwise one refresh runs, and if the authorization
 * server refuses it, the stored row is read once more in case another process rotated meanwhile.
 */
function freshCredentials(deps: Deps, row: Row, used: Record<string, string>, wwwAuthenticate: string | null | undefined, signal: AbortSignal) {
  let pending = refreshing.get(row.id);
  if (!pending) {
    const stored = async () => {
      const [current] = await deps.db.select().from(connectors).where(eq(connectors.id, row.id));
      const credentials = current ? decryptCredentials(deps, current) : used;
      return credentials.access_token && credentials.access_token !== used.access_token ? credentials : null;
    };
    pending = (async () => {
      const already = await stored();
      if (already) return already;
      try {
        const fresh = { ...(await refreshOAuthTokens(row.url, used as unknown as OAuthCredentials, wwwAuthenticate, deps.guard, signal)) } as Record<string, string>;
        await deps.db.update(connectors).set({ credentials: encryptCredentials(deps, row.id, fresh), updatedAt: deps.now() }).where(eq(connectors.id, row.id));
        return fresh;
      } catch (error) {
        const rotatedElsewhere = await stored();
        if (rotatedElsewhere) return rotatedElsewhere;
        if (error instanceof RefreshFailed)
          throw new McpClientError("auth", `The server's OAuth tokens expired and could not be refreshed (${error.message}). Reconnect it with new credentials.`);
        throw error;
      }
    })().finally(() => refreshing.delete(row.id));
    refreshing.set(row.id, pending);
  }
  return pending;
}

/**
 * Runs `operation` with the connector's credentials; for OAuth2, a 401 leads to new tokens
 * (stored encrypted) and one retry.
 */
async function withCredentials<T>(deps: Deps, row: Row, signal: AbortSignal, operation: (headers: () => Record<string, string>) => Promise<T>): Promise<T> {
  let credentials = decryptCredentials(deps, row);
  const headers = () => authHeaders(row.authMethod, credentials);
  try {
    return await operation(headers);
  } catch (error) {
    if (!(error instanceof McpClientError) || error.kind !== "auth" || row.authMethod !== "oauth2") throw error;
    credentials = await freshCredentials(deps, row, credentials, error.details.wwwAuthenticate, signal);
    return operation(headers);
  }
}

function errorText(error: unknown, what: "discovery" | "call"): string {
  if (error instanceof McpClientError) return error.message;
  if (isTimeout(error)) return "the server did not answer before the deadline";
  return `the ${what} failed`;
}

/** Initialize + tools/list (+ icon); replaces the snapshot. Never throws for the server's failures. */
export async function discover(deps: Deps, row: Row): Promise<Row> {
  const signal = AbortSignal.timeout(CONNECTOR_LIMITS.discoveryMs);
  const now = () => deps.now();
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
    const [updated] = await deps.db
      .update(connectors)
      .set({
        status: "connected",
        lastError: null,
        lastDiscoveredAt: now(),
        discoveredTools: tools,
        droppedTools: dropped,
        serverInfo: { name: serverInfo.name, version: serverInfo.version, protocolVersion },
        iconUrl,
        nextDiscoveryAt: new Date(now().getTime() + deps.config.connectorDiscoveryIntervalSeconds * 1000),
        updatedAt: now(),
      })
      .where(and(eq(connectors.id, row.id), live(connectors)))
      .returning();
    await forgetRemovedToggles(deps, row, tools);
    return updated ?? row;
  } catch (error) {
    if (!(error instanceof McpClientError) && !isTimeout(error)) {
      deps.log.error("connector discovery crashed", { connector_id: row.id, error: messageOf(error) });
    }
    const [updated] = await deps.db
      .update(connectors)
      .set({
        status: "error",
        lastError: errorText(error, "discovery"),
        lastDiscoveredAt: now(),
        nextDiscoveryAt: new Date(now().getTime() + deps.config.connectorDiscoveryIntervalSeconds * 1000),
        updatedAt: now(),
      })
      .where(and(eq(connectors.id, row.id), live(connectors)))
      .returning();
    return updated ?? row;
  }
}

/** Toggles of tools the server no longer lists go, so a tool that comes back starts disabled again. */
async function forgetRemovedToggles(deps: Deps, row: Row, keep: DiscoveredTool[] | null) {
  const orgAgents = deps.db.select({ id: agents.id }).from(agents).where(eq(agents.orgId, row.orgId));
  const toggles = await deps.db
    .select({ agentId: agentActionToggles.agentId, actionId: agentActionToggles.actionId })
    .from(agentActionToggles)
    .where(and(inArray(agentActionToggles.agentId, orgAgents), like(agentActionToggles.actionId, `mcp.${row.slug}.%`)));
  const kept = new Set((keep ?? []).map((t) => `mcp.${row.slug}.${t.name}`));
  const gone = toggles.filter((t) => !kept.has(t.actionId));
  for (const t of gone) await deps.db.delete(agentActionToggles).where(and(eq(agentActionToggles.agentId, t.agentId), eq(agentActionToggles.actionId, t.actionId)));
}

export function connectorView(row: Row) {
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
    })),
    dropped_tools: row.droppedTools,
    icon_url: row.iconUrl,
    server_info: row.serverInfo,
    created_at: row.createdAt.toISOString(),
  };
}

export async function connect(deps: Deps, orgId: string, input: ConnectInput) {
  await requireFlag(deps, orgId);
  const problems = [
    ...(input.name.trim() === "" ? [{ path: "/name", message: "is required" }] : []),
    ...(isSlug(input.slug) ? [] : [{ path: "/slug", message: SLUG_RULE }]),
    ...(await checkConnectorUrl(deps, input.url)),
    ...checkCredentials(input.auth_method, input.credentials),
  ];
  if (problems.length > 0) throw AppError.badRequest("The connector is invalid.", problems);
  const id = crypto.randomUUID();
  let row: Row;
  try {
    [row] = (await deps.db
      .insert(connectors)
      .values({ id, orgId, name: input.name.trim(), slug: input.slug, url: input.url, authMethod: input.auth_method, credentials: encryptCredentials(deps, id, input.credentials ?? {}), createdAt: deps.now(), updatedAt: deps.now() })
      .returning()) as [Row];
  } catch (error) {
    if (String((error as { cause?: unknown }).cause ?? error).includes("connectors_org_slug_live_idx"))
      throw new AppError(409, "conflict", `A connector with slug ${input.slug} exists.`, [{ path: "/slug", message: "is already used by a connected server" }]);
    throw error;
  }
  const discovered = await discover(deps, row);
  return { id, status: discovered.status, tool_count: discovered.discoveredTools.length, error: discovered.lastError };
}

async function liveRow(deps: Deps, orgId: string, id: string): Promise<Row> {
  if (!isUuid(id)) throw AppError.notFound("No such connector.");
  const [row] = await deps.db.select().from(connectors).where(and(eq(connectors.orgId, orgId), eq(connectors.id, id), live(connectors)));
  if (!row) throw AppError.notFound("No such connector.");
  return row;
}

export async function listConnectors(deps: Deps, orgId: string) {
  const rows = await deps.db.select().from(connectors).where(and(eq(connectors.orgId, orgId), live(connectors))).orderBy(connectors.createdAt);
  return { enabled: await flagEnabled(deps, orgId, "mcp_external_servers"), servers: rows.map(connectorView) };
}

/** PATCH: optional new name or credentials (auth_method with them), then handshake and discovery again. */
export async function refreshConnector(deps: Deps, orgId: string, id: string, patch: { name?: string; auth_method?: ConnectorAuthMethod; credentials?: Record<string, string> }) {
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
  const [updated] = await deps.db
    .update(connectors)
    .set({
      ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
      ...(patch.credentials !== undefined || patch.auth_method !== undefined ? { authMethod: method, credentials: encryptCredentials(deps, row.id, patch.credentials ?? {}) } : {}),
      updatedAt: deps.now(),
    })
    .where(eq(connectors.id, row.id))
    .returning();
  return connectorView(await discover(deps, updated!));
}

/** Soft delete: credentials emptied (the column, not just hidden), tools and toggles gone, row kept. */
export async function disconnect(deps: Deps, orgId: string, id: string) {
  const row = await liveRow(deps, orgId, id);
  await deps.db.update(connectors).set({ deletedAt: deps.now(), credentials: {}, discoveredTools: [], updatedAt: deps.now() }).where(eq(connectors.id, row.id));
  await forgetRemovedToggles(deps, row, null);
}

/** One tools/call on the connector's server (30 s), with the customer binding in `_meta`. */
export async function callConnectorTool(deps: Deps, row: Row, tool: DiscoveredTool, args: Record<string, unknown>, bound: BoundCustomer | undefined): Promise<ToolResult> {
  const signal = AbortSignal.timeout(CONNECTOR_LIMITS.callMs);
  try {
    const result = (await withCredentials(deps, row, signal, async (headers) => {
      const session = await McpSession.open({ url: row.url, authHeaders: headers, guard: deps.guard, signal });
      try {
        const params = { name: tool.name, arguments: args, ...(bound ? { _meta: { bound_end_user_id: bound.externalId ?? bound.id } } : {}) };
        // INTEROP B.6: a call is retried after a lost session only when the tool says it is safe to repeat.
        return await session.request("tools/call", params, tool.readOnly || tool.idempotent);
      } finally {
        await session.close();
      }
    })) as { content?: unknown; structuredContent?: unknown; isError?: unknown };
    return { value: resultValue(result), isError: result?.isError === true };
  } catch (error) {
    if (error instanceof McpClientError && error.kind === "auth" && row.authMethod === "oauth2")
      await deps.db.update(connectors).set({ status: "error", lastError: error.message, updatedAt: deps.now() }).where(eq(connectors.id, row.id));
    return { value: { error: `mcp.${row.slug}.${tool.name}: ${errorText(error, "call")}` }, isError: true };
  }
}

/** What the tool server puts in its one text block: structured content, else the texts, else the content as JSON. */
function resultValue(result: { content?: unknown; structuredContent?: unknown }): unknown {
  if (result?.structuredContent !== undefined) return result.structuredContent;
  const content = Array.isArray(result?.content) ? result.content : [];
  if (content.length > 0 && content.every((c) => typeof c === "object" && c !== null && (c as { type?: unknown }).type === "text" && typeof (c as { text?: unknown }).text === "string"))
    return content.map((c) => (c as { text: string }).text).join("\n");
  return content;
}

export async function liveConnectors(deps: Deps, orgId: string): Promise<Row[]> {
  return deps.db.select().from(connectors).where(and(eq(connectors.orgId, orgId), live(connectors)));
}

/** Scheduled discovery: claims due connectors atomically, so each is refreshed once per interval across processes. */
export async function claimDueConnectors(deps: Deps, limit: number): Promise<Row[]> {
  const now = deps.now();
  const until = new Date(now.getTime() + deps.config.connectorDiscoveryIntervalSeconds * 1000);
  const due = deps.db
    .select({ id: connectors.id })
    .from(connectors)
    .where(and(live(connectors), sql`${connectors.nextDiscoveryAt} <= ${now.toISOString()}::timestamptz`))
    .orderBy(connectors.nextDiscoveryAt)
    .limit(limit)
    .for("update", { skipLocked: true });
  return deps.db.update(connectors).set({ nextDiscoveryAt: until }).where(inArray(connectors.id, due)).returning();
}
