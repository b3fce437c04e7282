// Parametrised queries are named prepared statements on PostgreSQL (src/db/named-statements.ts):
// parsed and planned once per connection. Each test runs on a one-connection pool, so
// pg_prepared_statements (which lists the current session's) sees what that connection kept.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, inArray, sql } from "drizzle-orm";
import { type Database, openPostgres, queryRows } from "../../src/db/client.ts";
import { PREPARE_MAX_PARAMETERS } from "../../src/db/named-statements.ts";
import { orgs } from "../../src/db/schema/index.ts";
import { createTestDatabase, engine, type TestDatabase } from "../support/db.ts";

const onPostgres = engine === "postgres";
let testDb: TestDatabase;
let one: Database;

beforeAll(async () => {
  if (!onPostgres) return;
  testDb = await createTestDatabase();
  one = openPostgres(testDb.url!, { max: 1 });
});
afterAll(async () => {
  if (!onPostgres) return;
  await one.close();
  await testDb.close();
});

/** Statements this connection holds prepared whose text contains `marker`. */
async function kept(db: Database["db"], marker: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from pg_prepared_statements where statement like ${`%${marker}%`} and statement not like '%pg_prepared_statements%'`,
  );
  return row!.n;
}

describe.skipIf(!onPostgres)("named statements (PostgreSQL)", () => {
  test("a query builder query is prepared once and reused on later calls", async () => {
    for (let i = 0; i < 3; i++)
      await one.db
        .select({ id: orgs.id })
        .from(orgs)
        .where(eq(orgs.name, `named-${i}`));
    expect(await kept(one.db, `from "orgs" where "orgs"."name" = $1`)).toBe(1);
  });

  test(`an in-list of exactly ${PREPARE_MAX_PARAMETERS} parameters is kept; one more runs unnamed`, async () => {
    const ids = (n: number) => Array.from({ length: n }, () => crypto.randomUUID());
    await one.db
      .select({ id: orgs.id })
      .from(orgs)
      .where(inArray(orgs.id, ids(PREPARE_MAX_PARAMETERS)));
    await one.db
      .select({ id: orgs.id })
      .from(orgs)
      .where(inArray(orgs.id, ids(PREPARE_MAX_PARAMETERS + 1)));
    expect(await kept(one.db, `$${PREPARE_MAX_PARAMETERS})`)).toBe(1);
    expect(await kept(one.db, `$${PREPARE_MAX_PARAMETERS + 1})`)).toBe(0);
  });

  test("queries without parameters are not kept", async () => {
    await one.db.execute(sql.raw("select 'unparametrised-marker' as m"));
    expect(await kept(one.db, "unparametrised-marker")).toBe(0);
  });

  test("queries inside a transaction are prepared too", async () => {
    await one.db.transaction(async (tx) => {
      await tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.identityVerification, true));
    });
    expect(await kept(one.db, `where "orgs"."identity_verification" = $1`)).toBe(1);
  });

  test("prepare: false (DATABASE_PREPARE=0) keeps nothing, not even a query built with .prepare()", async () => {
    const unnamed = openPostgres(testDb.url!, { max: 1, prepare: false });
    try {
      await unnamed.db.select({ id: orgs.id }).from(orgs).where(eq(orgs.name, "unnamed"));
      await unnamed.db
        .select({ id: orgs.id })
        .from(orgs)
        .where(eq(orgs.id, sql.placeholder("id")))
        .prepare("unnamed_by_id")
        .execute({ id: crypto.randomUUID() });
      const [row] = await queryRows<{ n: number }>(unnamed.db, sql`select count(*)::int as n from pg_prepared_statements`);
      expect(row!.n).toBe(0);
    } finally {
      await unnamed.close();
    }
  });

  test("postgres.js's own switch, ?prepare=false in DATABASE_URL, is still honoured", async () => {
    const url = new URL(testDb.url!);
    url.searchParams.set("prepare", "false");
    const unnamed = openPostgres(url.toString(), { max: 1 });
    try {
      await unnamed.db.select({ id: orgs.id }).from(orgs).where(eq(orgs.name, "unnamed-by-url"));
      const [row] = await queryRows<{ n: number }>(unnamed.db, sql`select count(*)::int as n from pg_prepared_statements`);
      expect(row!.n).toBe(0);
    } finally {
      await unnamed.close();
    }
  });

  test("a statement kept before a table changed shape still runs afterwards (a migration while serving)", async () => {
    await one.db.execute(sql`create table named_shape (id int primary key, a text)`);
    await one.db.execute(sql`insert into named_shape values (1, 'x')`);
    const read = () => queryRows<Record<string, unknown>>(one.db, sql`select * from named_shape where id = ${1}`);
    expect(await read()).toEqual([{ id: 1, a: "x" }]);
    await one.db.execute(sql`alter table named_shape add column b text default 'y'`);
    expect(await read()).toEqual([{ id: 1, a: "x", b: "y" }]);
  });
});
