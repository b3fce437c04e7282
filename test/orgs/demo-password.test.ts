// The demo admin's password when standard output is not a terminal (README "Start"): written to
// DATA_DIR/demo-admin-password, mode 0600 whatever the umask, replacing an earlier file or link
// without writing through it; the banner names the file instead of printing the password.
import { expect, test } from "bun:test";
import { existsSync, lstatSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_PASSWORD_FILE, demoPasswordLine, writeDemoPassword } from "../../src/orgs/demo-password.ts";
import { tempDir } from "../support/process.ts";

test("on a terminal the password is printed; otherwise only the file's path", () => {
  const dataDir = tempDir();
  const path = join(dataDir, DEMO_PASSWORD_FILE);
  expect(demoPasswordLine({ password: "s3cret-pass", dataDir, terminal: true })).toBe("Password:    s3cret-pass   (shown once; it is not stored in the clear)");
  const line = demoPasswordLine({ password: "s3cret-pass", dataDir, terminal: false });
  expect(line).not.toContain("s3cret-pass");
  expect(line).toStartWith(`Password:    in ${path}   `);
  // Later starts: the file while it is there, then nothing.
  writeDemoPassword(dataDir, "s3cret-pass");
  expect(demoPasswordLine({ dataDir, terminal: false })).toBe(`Password:    in ${path}   (written at the first start)`);
  rmSync(path);
  expect(demoPasswordLine({ dataDir, terminal: true })).toBe("Password:    printed at the first start");
});

test("the file is 0600 under a permissive umask, DATA_DIR is made when missing, and an earlier file or link is replaced, not written through", () => {
  const dataDir = join(tempDir(), "a", "b");
  const before = process.umask(0);
  try {
    writeDemoPassword(dataDir, "first-password");
  } finally {
    process.umask(before);
  }
  const path = join(dataDir, DEMO_PASSWORD_FILE);
  expect(statSync(path).mode & 0o777).toBe(0o600);
  expect(readFileSync(path, "utf8")).toBe("first-password\n");

  const elsewhere = join(tempDir(), "victim");
  writeFileSync(elsewhere, "untouched", { mode: 0o644 });
  rmSync(path);
  symlinkSync(elsewhere, path);
  writeDemoPassword(dataDir, "second-password");
  expect(lstatSync(path).isSymbolicLink()).toBe(false);
  expect(readFileSync(path, "utf8")).toBe("second-password\n");
  expect(readFileSync(elsewhere, "utf8")).toBe("untouched");
  expect(existsSync(`${path}.${process.pid}.tmp`)).toBe(false);
});
