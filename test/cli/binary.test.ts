// The compiled binary (`npm run build`) starts alone in an empty directory: PGlite's assets and
// the migrations travel inside it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { buildBinary } from "../../scripts/build.ts";
import { createTestDatabase, engine, type TestDatabase } from "../support/db.ts";
import { runCli, type RunningServer, startServer, tempDir } from "../support/process.ts";

let binary: string;
let db: TestDatabase | undefined;
let server: RunningServer | undefined;

beforeAll(async () => {
  binary = await buildBinary(join(tempDir("svc-bin-"), "svc-agents"));
  if (engine === "postgres") db = await createTestDatabase();
}, 120_000);
afterAll(async () => {
  server?.proc.kill("SIGKILL");
  await db?.close();
});

test(`dist/svc-agents serves from an empty directory (${engine})`, async () => {
  const cwd = tempDir("svc-empty-");
  const env: Record<string, string> =
    engine === "postgres" ? { CWD: cwd, DATABASE_URL: db!.url!, SECRET_KEY: randomBytes(32).toString("base64") } : { CWD: cwd };
  server = await startServer(env, [binary, "serve"]);
  expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  expect(server.stdout()).toContain("Widget key:  ab_live_");
  expect(await server.stop()).toBe(0);
  if (engine === "pglite") expect(readdirSync(join(cwd, "data")).sort()).toEqual(["demo-admin-password", "pgdata", "secret.key"]); // the password goes to a file: standard output is not a terminal here

  const created = await runCli(["org", "create", "--name", "Binary", "--admin-email", "bin@example.com", "--admin-password", "long-enough"], env, [binary]);
  expect(created.code).toBe(0);
  expect(JSON.parse(created.stdout).widget_key).toMatch(/^ab_live_/);
}, 120_000);
