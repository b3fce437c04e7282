// Where the demo admin's generated password goes (README "Start"). On a terminal it is printed
// once, as a person reads it. When standard output is not a terminal — a container's log, a
// journal, a file — whatever is printed is kept as long as that log, so the password is written
// to a file in DATA_DIR readable by this user only (0600) and the banner prints the file's path.
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const DEMO_PASSWORD_FILE = "demo-admin-password";

export function demoPasswordPath(dataDir: string): string {
  return resolve(join(dataDir, DEMO_PASSWORD_FILE));
}

/**
 * Writes the password to DATA_DIR/demo-admin-password, mode 0600. Called before the demo org is
 * created, so a DATA_DIR that cannot be written stops the start before a password nobody can
 * read exists. A fresh file is renamed over any earlier one: never written through a link, and
 * never readable by others while it is being written.
 */
export function writeDemoPassword(dataDir: string, password: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = demoPasswordPath(dataDir);
  const fresh = `${path}.${process.pid}.tmp`;
  writeFileSync(fresh, `${password}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(fresh, 0o600); // the mode above is filtered by the umask; this is exact
  renameSync(fresh, path);
}

/**
 * The banner's `Password:` line. `password` is set only on the start that created the demo org
 * (and was written to the file when `terminal` is false); a later start points at the file while
 * it is still there.
 */
export function demoPasswordLine(options: { password?: string; dataDir: string; terminal: boolean }): string {
  const path = demoPasswordPath(options.dataDir);
  if (options.password !== undefined && options.terminal) return `Password:    ${options.password}   (shown once; it is not stored in the clear)`;
  if (options.password !== undefined)
    return `Password:    in ${path}   (standard output is not a terminal, so it is not printed; delete the file once you have signed in)`;
  if (existsSync(path)) return `Password:    in ${path}   (written at the first start)`;
  return "Password:    printed at the first start";
}
