// The one keyset pager (src/db/keyset.ts), through a list that uses it (the activity log): rows a
// microsecond apart inside one millisecond are each listed once — a cursor that carried a
// JavaScript Date would round them to the millisecond and skip some — a cursor is scoped to its
// org, and anything that is not a cursor this service issued is a 400 on /cursor.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { listActivity } from "../../src/activity/log.ts";
import { decodeCursor, encodeCursor } from "../../src/db/keyset.ts";
import { queryRows } from "../../src/db/client.ts";
import type { AppError } from "../../src/errors.ts";
import { rejectionOf } from "../support/settle.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

async function insertRows(orgId: string, n: number): Promise<void> {
  // created_at 2026-01-01 00:00:00.000001 … .0000n: one millisecond, n different microseconds.
  await app.deps.db.execute(sql`
    insert into activity_log (org_id, actor_kind, actor_id, action, object_type, object_id, summary, created_at)
    select ${orgId}::uuid, 'system', 'test', 'test.micro', 'step', i::text, '{}'::jsonb,
           timestamptz '2026-01-01 00:00:00+00' + make_interval(secs => i / 1000000.0)
    from generate_series(1, ${n}) as i`);
}

describe("keyset pages", () => {
  test("rows a microsecond apart are each listed once, newest first, page after page", async () => {
    const org = await seedOrg(app);
    await insertRows(org.org_id, 9);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await listActivity(app.deps, org.org_id, { action: "test.micro", limit: 2, cursor });
      seen.push(...page.items.map((item) => item.object_id));
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    }
    expect(seen).toEqual(["9", "8", "7", "6", "5", "4", "3", "2", "1"]);
  });

  test("a cursor of another org's row gives that org nothing; a deleted row's cursor gives an empty page", async () => {
    const mine = await seedOrg(app);
    const theirs = await seedOrg(app);
    await insertRows(mine.org_id, 3);
    await insertRows(theirs.org_id, 3);
    const first = await listActivity(app.deps, theirs.org_id, { action: "test.micro", limit: 1 });
    expect(first.next_cursor).not.toBeNull();
    expect((await listActivity(app.deps, mine.org_id, { action: "test.micro", cursor: first.next_cursor! })).items).toEqual([]);
    await app.deps.db.execute(sql`delete from activity_log where id = ${decodeCursor(first.next_cursor!)}`);
    expect((await listActivity(app.deps, theirs.org_id, { action: "test.micro", cursor: first.next_cursor! })).items).toEqual([]);
  });

  test("what is not a cursor this service issued is refused on /cursor", async () => {
    const org = await seedOrg(app);
    const [row] = await queryRows<{ id: string }>(app.deps.db, sql`select gen_random_uuid()::text as id`);
    expect(decodeCursor(encodeCursor(row!.id))).toBe(row!.id);
    for (const bad of [
      "garbage",
      Buffer.from("k:not-a-uuid").toString("base64url"),
      Buffer.from(`x:${row!.id}`).toString("base64url"),
      encodeCursor(row!.id) + "A".repeat(64),
    ]) {
      expect(decodeCursor(bad)).toBeNull();
      const error = (await rejectionOf(listActivity(app.deps, org.org_id, { cursor: bad }))) as AppError;
      expect(error.status).toBe(400);
      expect(error.details?.[0]?.path).toBe("/cursor");
    }
  });
});
