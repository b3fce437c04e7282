// Where the field-encryption key comes from: SECRET_KEY when set (required with DATABASE_URL);
// in embedded mode without it, a key generated on first start and kept in DATA_DIR/secret.key
// with mode 0600, next to the database it protects.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Config, parseSecretKey } from "../config.ts";

export function resolveSecretKey(config: Config): Buffer {
  if (config.secretKey) return config.secretKey;
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const path = join(config.dataDir, "secret.key");
  try {
    writeFileSync(path, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  return parseSecretKey(readFileSync(path, "utf8").trim(), path);
}
