// Connector credentials: encrypted per field at rest (the row id and field name as associated
// data), decrypted only on the outbound path, turned into the Authorization header, and for
// OAuth2 refreshed once after a 401 — once per connector even when parallel calls all met it.
import { eq } from "drizzle-orm";
import { type ConnectorAuthMethod, connectors } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { McpClientError } from "./mcp-client.ts";
import { type OAuthCredentials, RefreshFailed, refreshOAuthTokens } from "./oauth-refresh.ts";

export type ConnectorRow = typeof connectors.$inferSelect;

const credentialContext = (id: string, field: string) => `connectors.credentials.${field}:${id}`;

export function encryptCredentials(deps: Pick<Deps, "cipher">, id: string, credentials: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(credentials).map(([field, value]) => [field, deps.cipher.encrypt(value, credentialContext(id, field))]));
}

function decryptCredentials(deps: Pick<Deps, "cipher">, row: ConnectorRow): Record<string, string> {
  return Object.fromEntries(Object.entries(row.credentials).map(([field, value]) => [field, deps.cipher.decrypt(value, credentialContext(row.id, field))]));
}

function authHeaders(method: ConnectorAuthMethod, credentials: Record<string, string>): Record<string, string> {
  if (method === "bearer") return { authorization: `Bearer ${credentials.token}` };
  if (method === "oauth2") return { authorization: `Bearer ${credentials.access_token}` };
  return {};
}

/**
 * New OAuth2 credentials after a 401 with `used`. If someone (this process or another) already
 * stored different tokens, those are used; otherwise one refresh runs (deps.connectorRefreshes
 * shares it between parallel callers), and if the authorization server refuses it, the stored
 * row is read once more in case another process rotated meanwhile.
 */
function freshCredentials(
  deps: Pick<Deps, "cipher" | "connectorRefreshes" | "db" | "guard" | "now">,
  row: ConnectorRow,
  used: Record<string, string>,
  wwwAuthenticate: string | null | undefined,
  signal: AbortSignal,
) {
  const stored = async () => {
    const [current] = await deps.db.select().from(connectors).where(eq(connectors.id, row.id));
    const credentials = current ? decryptCredentials(deps, current) : used;
    return credentials.access_token && credentials.access_token !== used.access_token ? credentials : null;
  };
  return deps.connectorRefreshes.run(row.id, async () => {
    const already = await stored();
    if (already) return already;
    try {
      const fresh = { ...(await refreshOAuthTokens(row.url, used as unknown as OAuthCredentials, wwwAuthenticate, deps.guard, signal)) } as Record<
        string,
        string
      >;
      await deps.db
        .update(connectors)
        .set({ credentials: encryptCredentials(deps, row.id, fresh), updatedAt: deps.now() })
        .where(eq(connectors.id, row.id));
      return fresh;
    } catch (error) {
      const rotatedElsewhere = await stored();
      if (rotatedElsewhere) return rotatedElsewhere;
      if (error instanceof RefreshFailed)
        throw new McpClientError("auth", `The server's OAuth tokens expired and could not be refreshed (${error.message}). Reconnect it with new credentials.`);
      throw error;
    }
  });
}

/**
 * Runs `operation` with the connector's credentials; for OAuth2, a 401 leads to new tokens
 * (stored encrypted) and one retry.
 */
export async function withCredentials<T>(
  deps: Pick<Deps, "cipher" | "connectorRefreshes" | "db" | "guard" | "now">,
  row: ConnectorRow,
  signal: AbortSignal,
  operation: (headers: () => Record<string, string>) => Promise<T>,
): Promise<T> {
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
