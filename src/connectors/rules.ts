// What a connector may be (docs/interface.md 2.1, 2.2, docs/interface.md 7.3): limits, auth methods and their credential
// fields, the URL check, and which listed tools are kept. Pure checks; nothing here writes.
import type { ConnectorAuthMethod, DiscoveredTool, DroppedTool } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import type { ErrorDetail } from "../errors.ts";
import { BlockedUrlError, checkUrl } from "../net/guard.ts";
import { headerParams } from "./mcp-modern.ts";

export type { ConnectorAuthMethod };

export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const CONNECTOR_LIMITS = { name: 200, url: 2048, credentialField: 8000, discoveryMs: 15_000, callMs: 30_000, description: 4000 };
export const AUTH_METHODS: ConnectorAuthMethod[] = ["none", "bearer", "oauth2"];
/** Credential fields per auth method; the first of each is required. */
export const CREDENTIAL_FIELDS: Record<ConnectorAuthMethod, string[]> = {
  none: [],
  bearer: ["token"],
  oauth2: ["access_token", "refresh_token", "client_id", "client_secret"],
};

export function checkCredentials(method: ConnectorAuthMethod, credentials: Record<string, string> | undefined): ErrorDetail[] {
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
 * Interface docs/interface.md 7.3 / docs/interface.md 8.2: a URL that is not https (loopback in development), or whose host is or
 * resolves to a blocked address, is refused at connect time. A name that does not resolve is
 * not refused here: the connector is saved and its discovery fails like any unreachable server.
 */
export async function checkConnectorUrl(deps: Pick<Deps, "guard">, url: string): Promise<ErrorDetail[]> {
  if (url.length > CONNECTOR_LIMITS.url) return [{ path: "/url", message: `must be at most ${CONNECTOR_LIMITS.url} characters` }];
  try {
    await checkUrl(url, deps.guard);
    return [];
  } catch (error) {
    if (error instanceof BlockedUrlError) return error.unresolvable ? [] : [{ path: "/url", message: error.message }];
    throw error;
  }
}

/** Tools from tools/list: names checked (docs/interface.md 2.2), duplicates dropped, hints read as untrusted (docs/interface.md B.8). */
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
    // 2026-07-28 Streamable HTTP: a tool whose x-mcp-header annotations break the rules is left out.
    const mirrored = headerParams(schema);
    if ("invalid" in mirrored) {
      dropped.push({ name, reason: mirrored.invalid });
      continue;
    }
    seen.add(name);
    const hints = (typeof t.annotations === "object" && t.annotations !== null ? t.annotations : {}) as Record<string, unknown>;
    const readOnly = hints.readOnlyHint === true;
    const named = typeof t.title === "string" ? t.title : hints.title;
    const title = typeof named === "string" ? named.slice(0, CONNECTOR_LIMITS.name) : undefined;
    const output =
      typeof t.outputSchema === "object" && t.outputSchema !== null && (t.outputSchema as Record<string, unknown>).type === "object"
        ? (t.outputSchema as Record<string, unknown>)
        : undefined;
    tools.push({
      name,
      description: typeof t.description === "string" ? t.description.slice(0, CONNECTOR_LIMITS.description) : "",
      inputSchema: schema,
      // MCP: destructiveHint defaults to true and matters only when readOnlyHint is false.
      destructive: readOnly ? false : hints.destructiveHint !== false,
      readOnly,
      idempotent: hints.idempotentHint === true,
      ...(title ? { title } : {}),
      openWorld: hints.openWorldHint !== false,
      ...(output ? { outputSchema: output } : {}),
    });
  }
  return { tools, dropped };
}
