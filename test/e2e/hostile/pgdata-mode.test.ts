// PGlite data files are not readable by other accounts: those PGlite creates
// 0666 at first open are tightened after it, and those it writes later obey the 0077 umask.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openPglite } from "../../../src/db/client.ts";

const root = mkdtempSync(join(tmpdir(), "pgdata-mode-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const pending = [dir];
  while (pending.length > 0) {
    const at = pending.pop()!;
    if ((statSync(at).mode & 0o077) !== 0) found.push(at);
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if ((statSync(path).mode & 0o077) !== 0) found.push(`${path} ${(statSync(path).mode & 0o777).toString(8)}`);
    }
  }
  return found;
}

test("a new data directory, and what is written into it afterwards, is owner-only", async () => {
  const dir = join(root, "pgdata");
  const database = await openPglite(dir);
  try {
    expect(openToOthers(dir)).toEqual([]);
    await database.db.execute(sql`create table t (x text)`);
    await database.db.execute(sql`insert into t select g::text from generate_series(1, 2000) g`);
    await database.db.execute(sql`checkpoint`);
    expect(openToOthers(dir)).toEqual([]);
  } finally {
    await database.close();
  }
  expect(openToOthers(dir)).toEqual([]);
}, 60_000);
