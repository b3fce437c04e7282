// `backup --out <file>` and `restore --in <file> [--force]` (README "Backup and restore"), for the
// embedded database. A backup is taken by whoever holds DATA_DIR: the running server (through its
// admin socket, with --via-server), or this process when no server runs. Restore runs with the
// server stopped. Each returns the JSON line it prints on stdout.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Config } from "../config.ts";
import { openPglite } from "../db/client.ts";
import { acquireDataDirLock } from "../db/lock.ts";
import { fetchBackup } from "./admin-socket.ts";
import { BackupRefused, createBackup, readBackup, readManifest } from "./backup-file.ts";
import { restoreInto } from "./restore.ts";

function embeddedOnly(config: Readonly<Config>, what: string): void {
  if (config.databaseUrl)
    throw new BackupRefused(`${what} is for the embedded database; with DATABASE_URL use pg_dump and pg_restore (README "Backup and restore")`);
}

/** The backup of a DATA_DIR no server is running on: opened without migrating, so it is copied as it is. */
async function backupStopped(config: Readonly<Config>): Promise<Uint8Array<ArrayBuffer>> {
  const release = acquireDataDirLock(config.dataDir);
  try {
    const dir = join(config.dataDir, "pgdata");
    if (!existsSync(join(dir, "PG_VERSION"))) throw new BackupRefused(`${config.dataDir} holds no embedded database`);
    const database = await openPglite(dir);
    try {
      return await createBackup(database, config, new Date());
    } finally {
      await database.close();
    }
  } finally {
    release();
  }
}

export async function runBackup(config: Readonly<Config>, out: string, viaServer: boolean): Promise<string> {
  embeddedOnly(config, "backup");
  const bytes = viaServer ? await fetchBackup(config.dataDir) : await backupStopped(config);
  // Written beside its destination and renamed: never a half-written backup under the name asked for.
  const path = resolve(out);
  const partial = join(dirname(path), `.${process.pid}.svc-agents-backup.partial`);
  try {
    writeFileSync(partial, bytes, { mode: 0o600, flag: "wx" });
    renameSync(partial, path);
  } finally {
    rmSync(partial, { force: true });
  }
  const { manifest } = readManifest(bytes);
  return (
    JSON.stringify({
      file: path,
      bytes: bytes.length,
      migrations: manifest.schema.migrations,
      last_migration: manifest.schema.last,
      secret_key_included: manifest.secret_key_included,
    }) + "\n"
  );
}

export async function runRestore(config: Readonly<Config>, input: string, force: boolean): Promise<string> {
  embeddedOnly(config, "restore");
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = readFileSync(input);
  } catch (error) {
    throw new BackupRefused(`cannot read ${input}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const backup = readBackup(bytes, config);
  await restoreInto(config, backup, force);
  return (
    JSON.stringify({
      data_dir: resolve(config.dataDir),
      created_at: backup.manifest.created_at,
      migrations: backup.manifest.schema.migrations,
      last_migration: backup.manifest.schema.last,
      secret_key_included: backup.manifest.secret_key_included,
    }) + "\n"
  );
}
