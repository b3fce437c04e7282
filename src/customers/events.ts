// Customers' behavioural events (README "Widget SDK", POST /api/sdk/events): the rows, stored and
// read here; who an event belongs to is decided by the caller (src/sdk/events.ts).
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Conn } from "../db/client.ts";
import { customerEvents } from "../db/schema/index.ts";

export type CustomerEvent = typeof customerEvents.$inferSelect;
export type NewCustomerEvent = typeof customerEvents.$inferInsert;

/** Stores a batch of events (inside the caller's transaction when it passes one). */
export async function insertCustomerEvents(db: Conn, rows: NewCustomerEvent[]): Promise<void> {
  if (rows.length > 0) await db.insert(customerEvents).values(rows);
}

/** The most recent events of some of an org's customers, newest first. */
export async function recentCustomerEvents(db: Conn, orgId: string, endUserIds: string[], limit: number): Promise<CustomerEvent[]> {
  if (endUserIds.length === 0) return [];
  return db
    .select()
    .from(customerEvents)
    .where(and(eq(customerEvents.orgId, orgId), inArray(customerEvents.endUserId, endUserIds)))
    .orderBy(desc(customerEvents.occurredAt))
    .limit(limit);
}

/** Whether the org has received any event. */
export async function hasCustomerEvents(db: Conn, orgId: string): Promise<boolean> {
  const [row] = await db.select({ id: customerEvents.id }).from(customerEvents).where(eq(customerEvents.orgId, orgId)).limit(1);
  return row !== undefined;
}
