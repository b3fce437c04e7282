import { test, expect } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "./support/db.ts";
test("x", async () => {
  const d = await createTestDatabase();
  await d.db.execute(sql`create table zz (id serial primary key, v text)`);
  console.log("A");
  const p = d.db.transaction(async (tx) => {
    await tx.execute(sql`insert into zz (v) values (${"a"}) returning id`);
    console.log("B");
    throw new Error("boom");
  });
  try { await p; } catch (e) { console.log("C", String(e)); }
  const q = d.db.transaction(async (tx) => {
    await tx.execute(sql`select * from zz where v = ${"x"}`);
    await tx.execute(sql`insert into zz (v) values (${"a"}) returning id`);
    console.log("B2");
    throw new Error("boom2");
  });
  try { await q; } catch (e) { console.log("D", String(e)); }
  console.log(await d.db.execute(sql`select count(*) from zz`));
  await d.close();
}, 15000);
