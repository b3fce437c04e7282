// Calling a custom HTTP action (src/integrations/custom-actions.ts keeps the definitions): the org's
// actions as tools, each performing its request through the outbound guard with a 30 s deadline and a
// 1 MiB response cap; the stored header values are decrypted only here, for the request.
import { and, eq } from "drizzle-orm";
import { customActions } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { messageOf } from "../errors.ts";
import { parseJsonBounded } from "../http/json.ts";
import { live } from "../kit/rows.ts";
import { isTimeout } from "../kit/timeouts.ts";
import { BlockedUrlError, guardedFetch, readCapped, RedirectRefusedError, ResponseTooLargeError } from "../net/guard.ts";
import type { JsonSchemaObject, ToolDefinition, ToolProvider } from "../tools/types.ts";
import { CUSTOM_ACTION_LIMITS, type CustomActionRow as Row, headersContext } from "./custom-actions.ts";

async function perform(deps: Pick<Deps, "cipher" | "guard" | "log">, row: Row, args: Record<string, unknown>) {
  const headers = JSON.parse(deps.cipher.decrypt(row.headers, headersContext(row.id))) as Record<string, string>;
  const withQuery = row.method === "GET" || row.method === "DELETE";
  const url = new URL(row.url);
  if (withQuery) for (const [k, v] of Object.entries(args)) url.searchParams.set(k, typeof v === "string" ? v : JSON.stringify(v));
  try {
    const response = await guardedFetch(
      url.toString(),
      {
        method: row.method,
        headers: { accept: "application/json", "user-agent": "svc-agents/1.0", ...(withQuery ? {} : { "content-type": "application/json" }), ...headers },
        body: withQuery ? undefined : JSON.stringify(args),
        signal: AbortSignal.timeout(CUSTOM_ACTION_LIMITS.callTimeoutMs),
      },
      deps.guard,
    );
    const text = new TextDecoder().decode(await readCapped(response, CUSTOM_ACTION_LIMITS.responseBytes));
    let body: unknown = text;
    if (response.headers.get("content-type")?.includes("json")) {
      // Nesting bounded (src/http/json.ts, relay mode): JSON nested 100,000 levels from a partner
      // stalled the whole process for its deadline. What we refuse to parse is handed on as text.
      try {
        body = parseJsonBounded(text, { relay: true });
      } catch {}
    }
    return { value: { status: response.status, body }, isError: response.status >= 400 };
  } catch (error) {
    const known = error instanceof BlockedUrlError || error instanceof RedirectRefusedError || error instanceof ResponseTooLargeError;
    const timedOut = isTimeout(error);
    if (!known && !timedOut) deps.log.warn("custom action request failed", { action: row.slug, error: messageOf(error) });
    const message = timedOut ? `no answer within ${CUSTOM_ACTION_LIMITS.callTimeoutMs / 1000} s` : known ? (error as Error).message : "the request failed";
    return { value: { error: `custom.${row.slug}: ${message}` }, isError: true };
  }
}

/** The org's custom actions as tools. Destructive ones need actions:write, the others actions:read. */
export const customActionTools: ToolProvider = async (deps, orgId) => {
  const rows = await deps.db
    .select()
    .from(customActions)
    .where(and(eq(customActions.orgId, orgId), live(customActions)));
  return rows.map(
    (row): ToolDefinition => ({
      name: `custom.${row.slug}`,
      description: row.description,
      inputSchema: row.inputSchema as JsonSchemaObject,
      destructive: row.destructive,
      // RFC 9110 9.2: GET is safe, GET/PUT/DELETE idempotent; a non-destructive GET reads only.
      title: `Custom action ${row.slug}`,
      readOnly: !row.destructive && row.method === "GET",
      idempotent: ["GET", "PUT", "DELETE"].includes(row.method),
      openWorld: true,
      scope: row.destructive ? "actions:write" : "actions:read",
      source: { kind: "custom", id: row.id, label: "Custom action" },
      defaultEnabled: true,
      execute: (ctx, args) => perform(ctx.deps, row, args),
    }),
  );
};
