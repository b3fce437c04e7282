// Restores a checked backup into DATA_DIR without ever leaving a half-restored database
// (README "Backup and restore"). Under the DATA_DIR lock (so no server can start, and none may be
// running), the database is unpacked and opened in a staging directory inside DATA_DIR; only then
// does the old content move aside and the new one move in by rename. DATA_DIR itself is never
// renamed, so a mount point (the container's /data volume) works too.
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { Config } from "../config.ts";
import { openPglite, queryRows } from "../db/client.ts";
import { acquireDataDirLock } from "../db/lock.ts";
import { type Backup, BackupRefused } from "./backup-file.ts";

const LOCK = "svc-agents.lock";

export async function restoreInto(config: Readonly<Config>, backup: Backup, force: boolean): Promise<void> {
  const created = !existsSync(config.dataDir);
  const release = acquireDataDirLock(config.dataDir); // throws DataDirBusyError while a server runs on it
  const staging = join(config.dataDir, `restore-${process.pid}.tmp`);
  const old = join(config.dataDir, `restore-${process.pid}.old`);
  try {
    const present = readdirSync(config.dataDir).filter((name) => name !== LOCK);
    if (present.length > 0 && !force)
      throw new BackupRefused(
        `${config.dataDir} is not empty (${present.slice(0, 3).join(", ")}${present.length > 3 ? ", …" : ""}); restore replaces everything in it: add --force`,
      );
    mkdirSync(staging, { mode: 0o700 });
    await unpackDatabase(join(staging, "pgdata"), backup);
    if (backup.secretKey) writeFileSync(join(staging, "secret.key"), backup.secretKey, { mode: 0o600 });
    // The swap: pgdata last, so its rename is the moment the restored database appears.
    mkdirSync(old, { mode: 0o700 });
    for (const name of present) renameSync(join(config.dataDir, name), join(old, name));
    if (backup.secretKey) renameSync(join(staging, "secret.key"), join(config.dataDir, "secret.key"));
    renameSync(join(staging, "pgdata"), join(config.dataDir, "pgdata"));
    rmSync(old, { recursive: true, force: true });
  } catch (error) {
    if (existsSync(old) && !existsSync(join(config.dataDir, "pgdata"))) {
      for (const name of readdirSync(old)) renameSync(join(old, name), join(config.dataDir, name)); // put the old content back
      rmSync(old, { recursive: true, force: true });
    }
    throw error;
  } finally {
    rmSync(staging, { recursive: true, force: true });
    release();
    if (created && readdirSync(config.dataDir).length === 0) rmSync(config.dataDir, { recursive: true, force: true });
  }
}

/** Unpacks the dumped data directory into `dir` and opens it once: a damaged dump fails here, not at the next start. */
async function unpackDatabase(dir: string, backup: Backup): Promise<void> {
  let database;
  try {
    database = await openPglite(dir, { loadDataDir: new Blob([backup.pgdata]) });
  } catch (error) {
    throw new BackupRefused(`the backup's database could not be opened: ${(error as Error).message}`);
  }
  try {
    const [row] = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    if (row?.n !== backup.manifest.schema.migrations) throw new BackupRefused("the backup's database does not hold the migrations its manifest names");
  } finally {
    await database.close();
  }
  chmodSync(dir, 0o700);
}
