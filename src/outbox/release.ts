// Handing claims back. A process that stops (SIGTERM) releases the rows it claimed but has not
// begun to deliver, so another instance takes them on its next tick instead of after the lease
// (README "Faults and shutdown"). A row whose delivery began is not released: it may already have
// reached the receiver, and handing it on while this process may still finish it could send it
// twice at once; its lease bounds the wait instead, as for a killed process.
import { and, eq, sql } from "drizzle-orm";
import { outbox } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";

/** Puts claimed rows back to `pending`, the claim's attempt not counted; only rows this claim still holds. Returns how many. */
export async function releaseClaims(deps: Pick<Deps, "db" | "now">, rows: readonly Pick<typeof outbox.$inferSelect, "id" | "claimToken">[]): Promise<number> {
  let released = 0;
  for (const row of rows) {
    const done = await deps.db
      .update(outbox)
      .set({ status: "pending", attempts: sql`greatest(${outbox.attempts} - 1, 0)`, claimToken: null, lockedUntil: null, updatedAt: deps.now() })
      .where(and(eq(outbox.id, row.id), eq(outbox.status, "sending"), eq(outbox.claimToken, row.claimToken!)))
      .returning({ id: outbox.id });
    released += done.length;
  }
  return released;
}
