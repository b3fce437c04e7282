// `npm start` and `npm test` begin with scripts/check-node.cjs: on a Node.js older than
// package.json's engines.node it stops with one clear line instead of a failure deeper in.
import { expect, test } from "bun:test";
import { join } from "node:path";

const root = join(import.meta.dir, "../..");
const pkg = await Bun.file(join(root, "package.json")).json();
const node = Bun.which("node");

/** Runs the check under the machine's Node, reporting `version` as Node's. */
function check(version?: string) {
  const fake = version
    ? `Object.defineProperty(process, "versions", { value: Object.assign({}, process.versions, { node: ${JSON.stringify(version)} }) });`
    : "";
  return Bun.spawnSync([node!, "-e", `${fake} require("./scripts/check-node.cjs")`], { cwd: root, stderr: "pipe", stdout: "pipe" });
}

test("package.json states the minimum Node.js, and npm start and npm test check it first", () => {
  expect(pkg.engines.node).toBe(">=20");
  expect(pkg.scripts.prestart).toBe("node scripts/check-node.cjs");
  expect(pkg.scripts.pretest).toBe("node scripts/check-node.cjs");
});

test.skipIf(!node)("an older Node.js is refused with a clear message; the minimum and newer pass", () => {
  const old = check("18.19.0");
  expect(old.exitCode).toBe(1);
  expect(old.stderr.toString()).toContain("svc-agents needs Node.js 20 or newer to install and run its npm scripts (found 18.19.0)");
  expect(check("20.0.0").exitCode).toBe(0);
  expect(check("24.1.0").exitCode).toBe(0);
  expect(check().exitCode).toBe(0);
});
