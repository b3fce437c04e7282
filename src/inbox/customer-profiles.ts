// Customers as the inbox shows them: a searchable, paginated list and a detail page with their
// tickets and recent events. Reads only: end users are written by src/customers/records.ts.
import { and, desc, eq } from "drizzle-orm";
import { decodeCursor, pageOf } from "../db/keyset.ts";
import { tickets } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { recentCustomerEvents } from "../customers/events.ts";
import { endUsersByIds } from "../customers/lookups.ts";
import { listEndUsers } from "../customers/queries.ts";
import { type EndUser, findEndUser, identifyEndUser } from "../customers/records.ts";
import { identifyCompany } from "../customers/company-records.ts";
import { escapeLike, ticketView } from "./tickets.ts";

export const CUSTOMER_LIMITS = {
  query: 200,
  externalId: 256,
  email: 320,
  name: 200,
  /** Customers per import request (the /api body limit, 64 KiB, also applies). */
  importBatch: 100,
  pageSize: 100,
  defaultPageSize: 25,
  /** Tickets and events shown on a customer's page (the most recent ones). */
  recentTickets: 50,
  recentEvents: 50,
} as const;

/**
 * What every ticket and list row shows of its customer, verified or not (docs/interface.md 5, docs/interface.md D). An
 * unverified visitor who claimed a verified customer's `user_id` has no external id; the claim is
 * shown as `claimed_external_id` so the team sees who they say they are, and that it is unproven.
 */
export function customerSummary(user: EndUser) {
  return {
    id: user.id,
    external_id: user.externalId,
    ...(user.claimedExternalId ? { claimed_external_id: user.claimedExternalId } : {}),
    email: user.email,
    name: user.name,
    verified: user.verified,
  };
}

export function customerView(user: EndUser) {
  return {
    ...customerSummary(user),
    traits: user.traits,
    company_id: user.companyId,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}

export async function customersByIds(deps: Pick<Deps, "db">, orgId: string, ids: (string | null)[]): Promise<Map<string, EndUser>> {
  return endUsersByIds(deps.db, orgId, [...new Set(ids.filter((id): id is string => id !== null))]);
}

/** A customer by our id or the org's external id, within one org. */
export async function findCustomer(deps: Pick<Deps, "db">, orgId: string, ref: string): Promise<EndUser | null> {
  if (ref.length === 0 || ref.length > 256) return null;
  return findEndUser(deps, orgId, ref);
}

export async function listCustomers(deps: Pick<Deps, "db">, orgId: string, options: { query?: string; cursor?: string; limit?: number }) {
  const limit = options.limit ?? CUSTOMER_LIMITS.defaultPageSize;
  const q = options.query?.trim();
  let afterId: string | undefined;
  if (options.cursor !== undefined) {
    afterId = decodeCursor(options.cursor) ?? undefined;
    if (!afterId) throw AppError.badCursor();
  }
  const rows = await listEndUsers(deps.db, orgId, { pattern: q ? escapeLike(q) : undefined, afterId, limit: limit + 1 });
  const { page, nextCursor } = pageOf(rows, limit, (u) => u.id);
  return { customers: page, nextCursor };
}

/** A customer's page: their record, their most recent tickets, and their most recent events. */
export async function customerDetail(deps: Pick<Deps, "db">, orgId: string, ref: string) {
  const user = await findCustomer(deps, orgId, ref);
  if (!user) throw AppError.notFound("No such customer.");
  const recent = await deps.db
    .select()
    .from(tickets)
    .where(and(eq(tickets.orgId, orgId), eq(tickets.endUserId, user.id)))
    .orderBy(desc(tickets.number))
    .limit(CUSTOMER_LIMITS.recentTickets);
  // Events are src/customers' (the widget SDK records them through it); the inbox only reads them.
  const events = await recentCustomerEvents(deps.db, orgId, [user.id], CUSTOMER_LIMITS.recentEvents);
  return {
    ...customerView(user),
    tickets: recent.map(ticketView),
    events: events.map((e) => ({
      id: e.id,
      name: e.name,
      properties: e.properties,
      // The chat the event came from, by conversation id: the session id (a bearer secret) is never stored.
      conversation_id: e.conversationId,
      occurred_at: e.occurredAt.toISOString(),
      received_at: e.receivedAt.toISOString(),
    })),
  };
}

/** What the team may set on a customer it creates or imports. */
export interface CustomerInput {
  external_id: string;
  email?: string;
  name?: string;
  traits?: Record<string, unknown>;
  /** The company's external id; the company is created when new. */
  company_id?: string;
}

/**
 * Creates or updates customers by the org's external id, as the org's own team: such a record is
 * the org vouching for the identity, so it is stored as verified, exactly as a verified identify
 * call would store it (an earlier unverified claim on that id is moved aside, docs/interface.md D). Writes go
 * through src/customers/records.ts, the owner of end_users and companies.
 */
export async function upsertCustomers(
  deps: Pick<Deps, "db" | "now">,
  orgId: string,
  actor: Actor,
  inputs: CustomerInput[],
): Promise<{ user: EndUser; created: boolean }[]> {
  const results: { user: EndUser; created: boolean }[] = [];
  for (const input of inputs) {
    const existing = await findEndUser(deps, orgId, input.external_id);
    const created = !existing || existing.externalId !== input.external_id || !existing.verified;
    const company = input.company_id !== undefined ? await identifyCompany(deps, orgId, input.company_id, {}, true) : undefined; // the org vouches for it
    const user = await identifyEndUser(deps, orgId, input.external_id, true, {
      email: input.email,
      name: input.name,
      traits: input.traits,
      companyId: company?.id,
    });
    results.push({ user, created });
  }
  const created = results.filter((r) => r.created).length;
  await recordActivity(deps, {
    orgId,
    actor,
    action: inputs.length === 1 ? (created ? "customer.created" : "customer.updated") : "customer.imported",
    objectType: "customer",
    objectId: inputs.length === 1 ? results[0]!.user.id : orgId,
    summary: { created, updated: results.length - created },
  });
  return results;
}
