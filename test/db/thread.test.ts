// The database never runs on the HTTP thread: while a statement runs, the server still reads and
// answers requests. On PostgreSQL that is the network's doing; the embedded database gets it from
// its worker thread (src/db/pglite-thread.ts). Ordering is asserted, never durations.
// Also the worker's protocol at its edges: transactions hold the one connection, errors keep
// PostgreSQL's fields, LISTEN/NOTIFY and dumps cross the thread.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.ts";
import { engine } from "../support/db.ts";
import { serveTestApp, type ServedTestApp } from "../support/app.ts";

let app: ServedTestApp;
beforeAll(async () => {
  app = await serveTestApp();
});
afterAll(() => app.close());

test(`GET /healthz is answered while a two-second statement runs (${engine})`, async () => {
  const order: string[] = [];
  const slow = queryRows(app.deps.db, sql`select pg_sleep(2)`).then(() => order.push("statement"));
  await Bun.sleep(50); // the statement has left for the database
  const health = await fetch(`${app.url}/healthz`);
  order.push("healthz");
  expect(health.status).toBe(200);
  await slow;
  expect(order).toEqual(["healthz", "statement"]);
});

describe.skipIf(engine !== "pglite")("the embedded database's thread", () => {
  test("a statement outside an open transaction waits for its end, and sees its writes", async () => {
    const db = app.deps.db;
    await db.execute(sql`create table thread_probe (n int)`);
    const order: string[] = [];
    let outside: Promise<unknown> | undefined;
    await db.transaction(async (tx) => {
      await tx.execute(sql`insert into thread_probe values (1)`);
      outside = queryRows<{ c: number }>(db, sql`select count(*)::int as c from thread_probe`).then((rows) => {
        order.push("outside");
        return rows[0]!.c;
      });
      await Bun.sleep(50);
      await tx.execute(sql`insert into thread_probe values (2)`);
      order.push("commit");
    });
    expect(await outside).toBe(2);
    expect(order).toEqual(["commit", "outside"]);
  });

  test("a throwing transaction rolls back; the error keeps PostgreSQL's code", async () => {
    const db = app.deps.db;
    await db.execute(sql`create table thread_unique (n int primary key)`);
    const failed = await db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into thread_unique values (1)`);
        await tx.execute(sql`insert into thread_unique values (${1})`);
      })
      .catch((error: unknown) => error as Error & { cause?: { code?: string; constraint?: string } });
    expect(failed).toBeInstanceOf(Error);
    expect(failed!.cause?.code).toBe("23505");
    expect(failed!.cause?.constraint).toBe("thread_unique_pkey");
    expect(await queryRows(db, sql`select n from thread_unique`)).toEqual([]);
  });

  test("a prepared statement whose columns changed under it is prepared again", async () => {
    const db = app.deps.db;
    await db.execute(sql`create table thread_shape (a int)`);
    await db.execute(sql`insert into thread_shape values (1)`);
    const read = () => queryRows<Record<string, number>>(db, sql`select * from thread_shape where a = ${1}`);
    expect(await read()).toEqual([{ a: 1 }]);
    await db.execute(sql`alter table thread_shape add column b int default 2`);
    expect(await read()).toEqual([{ a: 1, b: 2 }]);
  });

  test("NOTIFY reaches a listener on the HTTP thread; a dump of the data directory comes back", async () => {
    const received: string[] = [];
    const stop = await app.database.listen("thread_probe", (payload) => received.push(payload));
    await app.deps.db.execute(sql`select pg_notify('thread_probe', 'hello')`);
    await stop();
    await app.deps.db.execute(sql`select pg_notify('thread_probe', 'after')`);
    expect(received).toEqual(["hello"]);
    const dump = await (app.deps.db as unknown as { $client: { dumpDataDir(c: "none"): Promise<Blob> } }).$client.dumpDataDir("none");
    expect(dump.size).toBeGreaterThan(1_000_000);
  });
});
