// Queries built once (src/db/prepared.ts) are kept per database handle: a caller whose deps carry
// a transaction as `db` gets a query bound to that transaction, never one built earlier on the
// pool (which would run outside the transaction, or on PGlite's one connection wait for it).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../src/db/client.ts";
import { createStatements, prepared } from "../../src/db/prepared.ts";
import { rateLimitCounters } from "../../src/db/schema/index.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

const byKey = (db: Db) =>
  db
    .select({ count: rateLimitCounters.count })
    .from(rateLimitCounters)
    .where(eq(rateLimitCounters.key, sql.placeholder("key")))
    .prepare("counter_by_key");

class Rollback extends Error {}

describe("prepared queries", () => {
  test("a query built on the pool, then asked for with a transaction's handle, runs inside that transaction", async () => {
    const deps = { db: database.db, statements: createStatements() };
    expect(await prepared(deps, "counter_by_key", byKey).execute({ key: "inside" })).toEqual([]);
    const seen = await database.db
      .transaction(async (tx) => {
        await tx.insert(rateLimitCounters).values({ key: "inside", windowStart: new Date(), count: 7, expiresAt: new Date(Date.now() + 60_000) });
        // Only a statement running in this transaction sees the uncommitted row.
        const rows = await prepared({ ...deps, db: tx as unknown as Db }, "counter_by_key", byKey).execute({ key: "inside" });
        throw Object.assign(new Rollback(), { rows });
      })
      .catch((error: unknown) => (error instanceof Rollback ? (error as Rollback & { rows: unknown }).rows : Promise.reject(error)));
    expect(seen).toEqual([{ count: 7 }]);
    // The pool's own query is still the one it built, and the row was rolled back.
    expect(await prepared(deps, "counter_by_key", byKey).execute({ key: "inside" })).toEqual([]);
  });

  test("the same handle gets the same built query", () => {
    const deps = { db: database.db, statements: createStatements() };
    expect(prepared(deps, "counter_by_key", byKey)).toBe(prepared(deps, "counter_by_key", byKey));
  });
});
