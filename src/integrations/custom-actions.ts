// Custom HTTP actions (`custom.<slug>`): the one native integration shipped. An org describes an
// HTTPS endpoint (method, URL, headers, input schema, destructive or not); calling the action
// performs that request through the outbound guard with a 30 s deadline and a 1 MiB response cap.
// Header values usually carry credentials: they are encrypted at rest and never returned.
// Every change is recorded in the activity log with its actor (names and hosts, never values) and
// drops the org's tool snapshot (deps.tools.invalidate).
import { and, eq } from "drizzle-orm";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { customActions } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import { checkFreeForm, SCHEMA_LIMITS } from "../http/free-form.ts";
import { isUuid } from "../kit/ids.ts";
import { live } from "../kit/rows.ts";
import { BlockedUrlError, checkUrl } from "../net/guard.ts";
import type { JsonSchemaObject } from "../tools/types.ts";
import { schemaProblem } from "../tools/validate.ts";

export const CUSTOM_ACTION_LIMITS = { callTimeoutMs: 30_000, responseBytes: 1024 * 1024, headers: 20, headerValue: 8000 };
export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type Method = (typeof METHODS)[number];
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "upgrade",
  "te",
  "trailer",
  "proxy-authorization",
  "keep-alive",
]);

/**
 * The dashboard's way to change headers without seeing them: `set` adds or replaces headers (a
 * name matches whatever its case), `remove` drops them by name; the others stay as they are.
 */
export interface HeaderChanges {
  set: Record<string, string>;
  remove: string[];
}

export type CustomActionPatch = Partial<Omit<CustomActionInput, "slug">> & { header_changes?: HeaderChanges };

export interface CustomActionInput {
  slug: string;
  description: string;
  method: Method;
  url: string;
  headers?: Record<string, string>;
  input_schema?: JsonSchemaObject;
  destructive?: boolean;
}

export type CustomActionRow = typeof customActions.$inferSelect;
type Row = CustomActionRow;
/** The cipher context of a row's encrypted headers (src/crypto): a value moved to another row does not decrypt. */
export const headersContext = (id: string) => `custom_actions.headers:${id}`;

export function customActionView(row: Row, headerNames: string[]) {
  return {
    id: row.id,
    action_id: `custom.${row.slug}`,
    slug: row.slug,
    description: row.description,
    method: row.method,
    url: row.url,
    header_names: headerNames,
    input_schema: row.inputSchema,
    destructive: row.destructive,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function checkHeaders(headers: Record<string, string>): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const entries = Object.entries(headers);
  if (entries.length > CUSTOM_ACTION_LIMITS.headers) problems.push({ path: "/headers", message: `at most ${CUSTOM_ACTION_LIMITS.headers} headers` });
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) problems.push({ path: `/headers/${name}`, message: "is not a valid header name" });
    else if (RESERVED_HEADERS.has(name.toLowerCase())) problems.push({ path: `/headers/${name}`, message: "is set by the service and cannot be configured" });
    if (value.length > CUSTOM_ACTION_LIMITS.headerValue || /[\r\n\0]/.test(value))
      problems.push({ path: `/headers/${name}`, message: `must be at most ${CUSTOM_ACTION_LIMITS.headerValue} characters with no line breaks` });
  }
  return problems;
}

function checkSchema(schema: JsonSchemaObject): ErrorDetail[] {
  // Bounded before Ajv compiles it (a deep schema once overflowed the stack).
  const tooBig = checkFreeForm(schema, SCHEMA_LIMITS);
  if (tooBig) return [{ path: "/input_schema", message: tooBig }];
  if (schema.type !== "object") return [{ path: "/input_schema/type", message: 'must be "object"' }];
  return schemaProblem(schema) ? [{ path: "/input_schema", message: "is not a valid JSON Schema" }] : [];
}

async function checkTarget(deps: Pick<Deps, "guard">, url: string): Promise<ErrorDetail[]> {
  try {
    await checkUrl(url, deps.guard);
    return [];
  } catch (error) {
    if (error instanceof BlockedUrlError) return [{ path: "/url", message: error.message }];
    throw error;
  }
}

/** The input schema of an action created without one: any object. */
export const DEFAULT_SCHEMA: JsonSchemaObject = { type: "object", properties: {}, additionalProperties: true };

/** The answer to a slug already used by a live action of the org, whoever noticed it first. */
function slugTaken(slug: string): AppError {
  return new AppError(409, "conflict", `A custom action with slug ${slug} exists.`, [{ path: "/slug", message: "is already used" }]);
}

/** `actor` is who the activity log names; without one (set-up code and tests) nothing is logged. */
export async function createCustomAction(
  deps: Pick<Deps, "cipher" | "db" | "guard" | "now" | "tools">,
  orgId: string,
  input: CustomActionInput,
  actor?: Actor,
) {
  const schema = input.input_schema ?? DEFAULT_SCHEMA;
  const problems = [...checkHeaders(input.headers ?? {}), ...checkSchema(schema), ...(await checkTarget(deps, input.url))];
  if (problems.length > 0) throw AppError.badRequest("The custom action is invalid.", problems);
  const [existing] = await deps.db
    .select({ id: customActions.id })
    .from(customActions)
    .where(and(eq(customActions.orgId, orgId), eq(customActions.slug, input.slug), live(customActions)));
  if (existing) throw slugTaken(input.slug);
  const id = crypto.randomUUID();
  const now = deps.now();
  const row = await deps.db.transaction(async (tx) => {
    // The pre-check above answers the common case without a write; two creates racing past it
    // meet at the partial unique index (org, slug) of live rows. ON CONFLICT on that index turns
    // the loser's insert into no row — the same 409, never a unique-violation 500 — and leaves the
    // transaction usable, so nothing is logged for it.
    const [inserted] = await tx
      .insert(customActions)
      .values({
        id,
        orgId,
        slug: input.slug,
        description: input.description,
        method: input.method,
        url: input.url,
        headers: deps.cipher.encrypt(JSON.stringify(input.headers ?? {}), headersContext(id)),
        inputSchema: schema,
        destructive: input.destructive ?? true,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing({ target: [customActions.orgId, customActions.slug], where: live(customActions) })
      .returning();
    if (!inserted) throw slugTaken(input.slug);
    if (actor)
      await recordActivity(
        { db: tx, now: deps.now },
        {
          orgId,
          actor,
          action: "custom_action.created",
          objectType: "custom_action",
          objectId: id,
          summary: { slug: input.slug, method: input.method, host: new URL(input.url).host, header_names: Object.keys(input.headers ?? {}) },
        },
      );
    return inserted;
  });
  deps.tools.invalidate(orgId); // read-your-writes: the next tools/list shows the change
  return customActionView(row, Object.keys(input.headers ?? {}));
}

async function liveRow(deps: Pick<Deps, "db">, orgId: string, id: string): Promise<Row> {
  if (!isUuid(id)) throw AppError.notFound("No such custom action.");
  const [row] = await deps.db
    .select()
    .from(customActions)
    .where(and(eq(customActions.orgId, orgId), eq(customActions.id, id), live(customActions)));
  if (!row) throw AppError.notFound("No such custom action.");
  return row;
}

function storedHeaders(deps: Pick<Deps, "cipher">, row: Row): Record<string, string> {
  return JSON.parse(deps.cipher.decrypt(row.headers, headersContext(row.id))) as Record<string, string>;
}

function headerNames(deps: Pick<Deps, "cipher">, row: Row): string[] {
  return Object.keys(storedHeaders(deps, row));
}

/** One live action of the org, as the API shows it (header names only); 404 otherwise, another org's included. */
export async function readCustomAction(deps: Pick<Deps, "cipher" | "db">, orgId: string, id: string) {
  const row = await liveRow(deps, orgId, id);
  return customActionView(row, headerNames(deps, row));
}

/** `changes` applied to `headers`; a name matches whatever its case. */
function mergeHeaders(headers: Record<string, string>, changes: HeaderChanges): Record<string, string> {
  const drop = new Set([...changes.remove, ...Object.keys(changes.set)].map((n) => n.toLowerCase()));
  const kept = Object.entries(headers).filter(([name]) => !drop.has(name.toLowerCase()));
  return { ...Object.fromEntries(kept), ...changes.set };
}

export async function listCustomActions(deps: Pick<Deps, "cipher" | "db">, orgId: string) {
  const rows = await deps.db
    .select()
    .from(customActions)
    .where(and(eq(customActions.orgId, orgId), live(customActions)));
  return rows.map((row) => customActionView(row, headerNames(deps, row)));
}

/**
 * Changes what the patch names. `headers` replaces every header (the API); `header_changes` sets
 * and removes some, keeping the rest unseen (the dashboard). A new URL passes the outbound guard
 * as at creation, checked before the row is locked (a DNS answer may take a while).
 */
export async function updateCustomAction(
  deps: Pick<Deps, "cipher" | "db" | "guard" | "now" | "tools">,
  orgId: string,
  id: string,
  patch: CustomActionPatch,
  actor: Actor,
) {
  await liveRow(deps, orgId, id);
  const problems = [
    ...(patch.headers ? checkHeaders(patch.headers) : []),
    ...(patch.header_changes ? checkHeaders(patch.header_changes.set) : []),
    ...(patch.input_schema ? checkSchema(patch.input_schema) : []),
    ...(patch.url ? await checkTarget(deps, patch.url) : []),
  ];
  if (problems.length > 0) throw AppError.badRequest("The custom action is invalid.", problems);
  const updated = await deps.db.transaction(async (tx) => {
    // Locked, so two edits of the headers cannot both start from the same stored set.
    const [row] = await tx
      .select()
      .from(customActions)
      .where(and(eq(customActions.orgId, orgId), eq(customActions.id, id), live(customActions)))
      .for("update");
    if (!row) throw AppError.notFound("No such custom action.");
    let headers = patch.headers;
    if (patch.header_changes) {
      headers = mergeHeaders(headers ?? storedHeaders(deps, row), patch.header_changes);
      const merged = checkHeaders(headers);
      if (merged.length > 0) throw AppError.badRequest("The custom action is invalid.", merged);
    }
    const [saved] = await tx
      .update(customActions)
      .set({
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.method !== undefined ? { method: patch.method } : {}),
        ...(patch.url !== undefined ? { url: patch.url } : {}),
        ...(headers !== undefined ? { headers: deps.cipher.encrypt(JSON.stringify(headers), headersContext(row.id)) } : {}),
        ...(patch.input_schema !== undefined ? { inputSchema: patch.input_schema } : {}),
        ...(patch.destructive !== undefined ? { destructive: patch.destructive } : {}),
        updatedAt: deps.now(),
      })
      .where(eq(customActions.id, row.id))
      .returning();
    const fields = Object.keys(patch)
      .filter((k) => (patch as Record<string, unknown>)[k] !== undefined)
      .map((k) => (k === "header_changes" ? "headers" : k));
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId,
        actor,
        action: "custom_action.updated",
        objectType: "custom_action",
        objectId: row.id,
        summary: {
          slug: row.slug,
          fields: [...new Set(fields)].sort(),
          ...(patch.url !== undefined ? { host: new URL(patch.url).host } : {}),
          ...(headers !== undefined ? { header_names: Object.keys(headers) } : {}),
        },
      },
    );
    return saved!;
  });
  deps.tools.invalidate(orgId);
  return customActionView(updated, headerNames(deps, updated));
}

/** Soft delete: the row stays for the audit trail, its encrypted headers are emptied. */
export async function deleteCustomAction(deps: Pick<Deps, "db" | "now" | "tools">, orgId: string, id: string, actor?: Actor) {
  const row = await liveRow(deps, orgId, id);
  await deps.db.transaction(async (tx) => {
    await tx.update(customActions).set({ deletedAt: deps.now(), headers: "" }).where(eq(customActions.id, row.id));
    if (actor)
      await recordActivity(
        { db: tx, now: deps.now },
        { orgId, actor, action: "custom_action.deleted", objectType: "custom_action", objectId: row.id, summary: { slug: row.slug } },
      );
  });
  deps.tools.invalidate(orgId);
}
