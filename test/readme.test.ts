// README facts a new user acts on, checked against the code they describe.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";

const root = join(import.meta.dir, "..");
const readme = await Bun.file(join(root, "README.md")).text();
const pkg = await Bun.file(join(root, "package.json")).json();

test("MAIL_FROM's documented default is the one the code uses", () => {
  const row = readme.split("\n").find((l) => l.startsWith("| `MAIL_FROM` |"))!;
  expect(row).toBeDefined();
  expect(row.split(" | ")[1]).toContain(`\`${loadConfig({}).mailFrom}\``);
});

test("the Node.js minimum in Start is package.json's engines.node", () => {
  const minimum = /^>=(\d+)$/.exec(pkg.engines.node)![1];
  const start = readme.slice(readme.indexOf("## Start"), readme.indexOf("## Test"));
  expect(start).toContain(`Node.js ${minimum} or newer`);
  expect(start).not.toMatch(/Node\.js \(\d+\+\)/);
});

test("the Status is a list, not one long sentence, and says nothing stale", () => {
  const status = readme.slice(readme.indexOf("> Status:"), readme.indexOf("## Start"));
  expect(status.split("\n").filter((l) => l.startsWith("> - ")).length).toBeGreaterThanOrEqual(5);
  for (const line of status.split("\n")) expect(line.length).toBeLessThan(400);
  expect(readme).not.toContain("until it is wired in, nobody counts as connected");
});

test("the README has the local email recipe and links the API viewer", () => {
  expect(readme).toContain("## Try email locally");
  expect(readme).toContain("INBOUND_SMTP_PORT=2526 npm start");
  expect(readme).toContain("(#api-reference)");
  expect(readme).toContain("## API reference");
});
