// The backup file (README "Backup and restore"): a tar holding
//   manifest.json   format name and version, when, the schema (applied migrations), the key id
//   secret.key      DATA_DIR/secret.key when the key lives there (absent when SECRET_KEY is set)
//   pgdata.tar.gz   the embedded database's data directory, as PGlite dumps it
// The key is included because without it the encrypted fields (connector credentials, identity
// secrets) cannot be read: the file is as sensitive as DATA_DIR itself (docs/decisions.md
// "Backups hold the secret key").
import { createHmac } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { type Config, parseSecretKey } from "../config.ts";
import { type Database, queryRows } from "../db/client.ts";
import { migrationFiles } from "../db/migrations/index.ts";
import { packTar, TarError, unpackTar } from "./tar.ts";

export const BACKUP_FORMAT = "svc-agents-backup";
export const BACKUP_VERSION = 1;

export interface Manifest {
  format: typeof BACKUP_FORMAT;
  version: number;
  created_at: string;
  /** The applied migrations: how many, and the newest one's tag and timestamp (drizzle's `created_at`). */
  schema: { migrations: number; last: string | null; last_when: number };
  /** Whether secret.key is inside; when not, the data was encrypted with SECRET_KEY from the environment. */
  secret_key_included: boolean;
  /** HMAC-SHA256(key, "svc-agents key id"), 16 hex digits: tells which key the data needs, reveals nothing of it. */
  key_id: string;
}

export interface Backup {
  manifest: Manifest;
  pgdata: Uint8Array<ArrayBuffer>;
  secretKey?: Uint8Array<ArrayBuffer>;
}

/** A backup that cannot or must not be restored: exit 1 with the message. */
export class BackupRefused extends Error {}

export function keyId(key: Buffer): string {
  return createHmac("sha256", key).update("svc-agents key id").digest("hex").slice(0, 16);
}

export function secretKeyPath(config: Readonly<Config>): string {
  return join(config.dataDir, "secret.key");
}

/** The key the data in DATA_DIR is encrypted with: SECRET_KEY, else DATA_DIR/secret.key (its file too). */
function currentKey(config: Readonly<Config>): { key: Buffer; file?: Uint8Array<ArrayBuffer> } {
  if (config.secretKey) return { key: config.secretKey };
  const path = secretKeyPath(config);
  if (!existsSync(path)) throw new BackupRefused(`${path} is missing: without it the encrypted fields cannot be read`);
  const file = readFileSync(path);
  return { key: parseSecretKey(file.toString("utf8").trim(), path), file };
}

async function appliedSchema(database: Database): Promise<Manifest["schema"]> {
  const rows = await queryRows<{ created_at: string | number }>(database.db, sql`select created_at from drizzle.__drizzle_migrations order by created_at`);
  const lastWhen = rows.length === 0 ? 0 : Number(rows[rows.length - 1]!.created_at);
  return { migrations: rows.length, last: migrationFiles.find((m) => m.when === lastWhen)?.tag ?? null, last_when: lastWhen };
}

/** Takes the backup of an open embedded database (the running server's, or one the CLI opened). */
export async function createBackup(database: Database, config: Readonly<Config>, now: Date): Promise<Uint8Array<ArrayBuffer>> {
  const { key, file } = currentKey(config);
  const schema = await appliedSchema(database);
  const pgdata = new Uint8Array(await (await database.backup()).arrayBuffer());
  const manifest: Manifest = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    created_at: now.toISOString(),
    schema,
    secret_key_included: file !== undefined,
    key_id: keyId(key),
  };
  const entries = [{ name: "manifest.json", data: new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`), mode: 0o600 }];
  if (file) entries.push({ name: "secret.key", data: file, mode: 0o600 });
  entries.push({ name: "pgdata.tar.gz", data: pgdata, mode: 0o600 });
  return packTar(entries, Math.floor(now.getTime() / 1000));
}

function parseManifest(bytes: Uint8Array<ArrayBuffer> | undefined): Manifest {
  let value: Partial<Manifest> | undefined;
  try {
    value = bytes && JSON.parse(new TextDecoder().decode(bytes));
  } catch {}
  if (value?.format !== BACKUP_FORMAT || !Number.isInteger(value.version)) throw new BackupRefused("not a svc-agents backup (no manifest.json)");
  if (value.version! > BACKUP_VERSION)
    throw new BackupRefused(
      `the backup is in format version ${value.version}, newer than this svc-agents reads (${BACKUP_VERSION}): restore it with a newer svc-agents`,
    );
  const schema = value.schema;
  if (
    typeof schema?.last_when !== "number" ||
    typeof schema.migrations !== "number" ||
    typeof value.key_id !== "string" ||
    typeof value.secret_key_included !== "boolean"
  )
    throw new BackupRefused("the backup's manifest.json is incomplete");
  return value as Manifest;
}

export function readManifest(bytes: Uint8Array<ArrayBuffer>): { files: Map<string, Uint8Array<ArrayBuffer>>; manifest: Manifest } {
  let files: Map<string, Uint8Array<ArrayBuffer>>;
  try {
    files = unpackTar(bytes);
  } catch (error) {
    if (error instanceof TarError) throw new BackupRefused(`not a svc-agents backup (${error.message})`);
    throw error;
  }
  return { files, manifest: parseManifest(files.get("manifest.json")) };
}

/**
 * Reads a backup file and checks it can be restored by this binary with this configuration:
 * its schema is not newer than the migrations this binary knows, and the key the restored server
 * will use is the one its data was encrypted with.
 */
export function readBackup(bytes: Uint8Array<ArrayBuffer>, config: Readonly<Config>): Backup {
  const { files, manifest } = readManifest(bytes);
  const newest = migrationFiles[migrationFiles.length - 1]!;
  if (manifest.schema.last_when > newest.when || manifest.schema.migrations > migrationFiles.length)
    throw new BackupRefused(
      `the backup's schema (${manifest.schema.migrations} migrations, last ${manifest.schema.last ?? "unknown"}) is newer than this ` +
        `svc-agents knows (${migrationFiles.length}, last ${newest.tag}): restore it with the version ` +
        `that made it or a newer one`,
    );
  const pgdata = files.get("pgdata.tar.gz");
  if (!pgdata) throw new BackupRefused("the backup holds no database (pgdata.tar.gz)");
  const secretKey = files.get("secret.key");
  if (manifest.secret_key_included !== (secretKey !== undefined)) throw new BackupRefused("the backup's secret.key is missing");
  const key = config.secretKey ?? (secretKey && parseSecretKey(new TextDecoder().decode(secretKey).trim(), "the backup's secret.key"));
  if (!key) throw new BackupRefused("the backup holds no secret key (it was made with SECRET_KEY set): set SECRET_KEY to that key and run restore again");
  if (keyId(key) !== manifest.key_id)
    throw new BackupRefused(
      config.secretKey
        ? "SECRET_KEY is not the key this backup's data is encrypted with (the server would use it and could not read the encrypted fields): " +
            "unset it or set the right key"
        : "the backup's secret.key does not match its manifest",
    );
  return { manifest, pgdata, ...(secretKey ? { secretKey } : {}) };
}
