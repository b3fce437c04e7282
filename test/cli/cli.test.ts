// The command line, run as a real process: usage errors, configuration errors, org create / flag.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { openPglite, openPostgres, type Database } from "../../src/db/client.ts";
import { agents, members, memberships, orgs, widgetKeys } from "../../src/db/schema/index.ts";
import { createTestDatabase, engine, seedDataDir, type TestDatabase } from "../support/db.ts";
import { runCli, tempDir } from "../support/process.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("usage errors: exit 2, usage on stderr, nothing on stdout", () => {
  const cases: [string, string[], RegExp][] = [
    ["unknown command", ["frobnicate"], /unknown command/],
    ["missing --name", ["org", "create", "--admin-email", "a@example.com", "--admin-password", "long-enough"], /--name is required/],
    ["unknown option", ["org", "create", "--name", "A", "--admin-email", "a@example.com", "--admin-password", "long-enough", "--colour", "red"], /colour/],
    ["bad email", ["org", "create", "--name", "A", "--admin-email", "not-an-email", "--admin-password", "long-enough"], /--admin-email: must be an email/],
    ["short password", ["org", "create", "--name", "A", "--admin-email", "a@example.com", "--admin-password", "short"], /--admin-password: must be 8/],
    [
      "unknown flag",
      ["org", "create", "--name", "A", "--admin-email", "a@example.com", "--admin-password", "long-enough", "--flag", "teleport"],
      /unknown feature flag "teleport"/,
    ],
    ["org flag without a uuid", ["org", "flag", "--org", "42", "--name", "mcp_external_servers", "--on"], /--org must be/],
    [
      "org flag with both --on and --off",
      ["org", "flag", "--org", crypto.randomUUID(), "--name", "mcp_external_servers", "--on", "--off"],
      /exactly one of --on and --off/,
    ],
    ["org flag with neither", ["org", "flag", "--org", crypto.randomUUID(), "--name", "mcp_external_servers"], /exactly one of --on and --off/],
    ["serve with an argument", ["serve", "now"], /unexpected argument/],
  ];
  for (const [name, args, message] of cases) {
    test(name, async () => {
      const dir = tempDir();
      const result = await runCli(args, { DATA_DIR: dir });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toContain("usage: svc-agents");
    });
  }

  test("help prints usage and exits 0", async () => {
    const result = await runCli(["--help"], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("org create --name <name>");
  });
});

test("a bad environment value stops with one line naming the variable", async () => {
  const result = await runCli(["migrate"], { PORT: "eighty", DATA_DIR: tempDir() });
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  expect(result.stderr).toContain("PORT must be a whole number");
});

describe(`org create and org flag (${engine})`, () => {
  let env: Record<string, string>;
  let testDb: TestDatabase | undefined;
  let dataDir: string;

  beforeAll(async () => {
    if (engine === "postgres") {
      testDb = await createTestDatabase();
      env = { DATABASE_URL: testDb.url!, SECRET_KEY: randomBytes(32).toString("base64") };
    } else {
      // A migrated DATA_DIR, as after a first start (test/cli/serve.test.ts covers that start).
      dataDir = tempDir();
      await seedDataDir(dataDir);
      env = { DATA_DIR: dataDir };
    }
  });
  afterAll(() => testDb?.close());

  /** Opens the same database the CLI wrote to (after the CLI has exited, for PGlite). */
  async function inspect<T>(read: (db: Database) => Promise<T>): Promise<T> {
    const db = engine === "postgres" ? openPostgres(testDb!.url!, { max: 1 }) : await openPglite(`${dataDir}/pgdata`);
    try {
      return await read(db);
    } finally {
      await db.close();
    }
  }

  let created: Record<string, string>;

  test("org create prints exactly one JSON object with the contract's fields", async () => {
    const result = await runCli(
      ["org", "create", "--name", "Acme Support", "--admin-email", "Owner@Acme.example", "--admin-password", "s3cret-enough", "--flag", "mcp_external_servers"],
      env,
    );
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    created = JSON.parse(lines[0]!);
    expect(Object.keys(created).sort()).toEqual(["admin_email", "agent_id", "identity_secret", "org_id", "widget_key"]);
    expect(created.org_id).toMatch(UUID);
    expect(created.agent_id).toMatch(UUID);
    expect(created.widget_key).toMatch(/^ab_live_[A-Za-z0-9_-]{32}$/);
    expect(created.identity_secret!.length).toBeGreaterThanOrEqual(43);
    expect(created.admin_email).toBe("owner@acme.example");
    expect(result.stderr).not.toContain("s3cret-enough");

    await inspect(async ({ db }) => {
      const [org] = await db.select().from(orgs).where(eq(orgs.id, created.org_id!));
      expect(org!.name).toBe("Acme Support");
      expect(org!.featureFlags).toEqual({ mcp_external_servers: true });
      expect(org!.identitySecret).not.toContain(created.identity_secret!); // encrypted at rest
      const [agent] = await db.select().from(agents).where(eq(agents.orgId, created.org_id!));
      expect(agent).toMatchObject({ id: created.agent_id, status: "active" });
      const keys = await db.select().from(widgetKeys).where(eq(widgetKeys.orgId, created.org_id!));
      expect(keys.map((k) => k.key)).toEqual([created.widget_key!]);
      const [admin] = await db
        .select()
        .from(members)
        .innerJoin(memberships, eq(memberships.memberId, members.id))
        .where(eq(memberships.orgId, created.org_id!));
      expect(admin!.members.passwordHash).toStartWith("$argon2id$");
      expect(admin!.memberships.roles).toContain("integrations:manage");
    });
  });

  test("org flag turns a flag off and on", async () => {
    const off = await runCli(["org", "flag", "--org", created.org_id!, "--name", "mcp_external_servers", "--off"], env);
    expect(off.code).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ org_id: created.org_id, flag: "mcp_external_servers", enabled: false });
    await inspect(async ({ db }) => {
      const [org] = await db.select({ flags: orgs.featureFlags }).from(orgs).where(eq(orgs.id, created.org_id!));
      expect(org!.flags.mcp_external_servers).toBe(false);
    });
    const on = await runCli(["org", "flag", "--org", created.org_id!, "--name", "mcp_external_servers", "--on"], env);
    expect(JSON.parse(on.stdout).feature_flags).toEqual({ mcp_external_servers: true });
  });

  test("org flag on an unknown org exits 1 and changes nothing", async () => {
    const result = await runCli(["org", "flag", "--org", "00000000-0000-4000-8000-000000000000", "--name", "mcp_external_servers", "--on"], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("No organisation with id");
  });

  test("migrate exits 0 on an up-to-date database", async () => {
    const result = await runCli(["migrate"], env);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("up to date");
  });
});
