// Backup and restore of the embedded database (README "Backup and restore") as real processes: a
// backup taken through a serving server's admin socket, restored into a new DATA_DIR, served again
// and compared with the original table by table, row by row; then the refusals and usage errors.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { packTar, unpackTar } from "../../src/cli/tar.ts";
import { loadConfig } from "../../src/config.ts";
import { connect } from "../../src/connectors/service.ts";
import { type Database, openPglite, queryRows } from "../../src/db/client.ts";
import { connectors } from "../../src/db/schema/index.ts";
import { systemActor } from "../../src/kit/actor.ts";
import { createDoc } from "../../src/knowledge/docs.ts";
import { createLogger } from "../../src/log.ts";
import { createOrg } from "../../src/orgs/service.ts";
import { openServices } from "../../src/server.ts";
import { engine, seedDataDir } from "../support/db.ts";
import { freePort, runCli, type RunningServer, startServer, tempDir } from "../support/process.ts";

const TOKEN = "bearer-credential-kept-encrypted";
const OWNER = { email: "owner@backup.example", password: "backup-password" };
// development: the connector may point at loopback; the metrics token lets the test see the outbox.
const METRICS_TOKEN = "backup-test-metrics-token-0123456789";
const ENV = { NODE_ENV: "development", SEED_DEMO: "0", METRICS_TOKEN };

/**
 * Waits until the server's outbox holds nothing to deliver (read from /metrics): the sender
 * settles the rows the writes queued (member notices, held here without SMTP) before the backup,
 * so the data directory after the stop is the one the backup saw.
 */
async function outboxSettled(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const waiting = text
      .split("\n")
      .filter((line) => line.startsWith("svc_outbox_waiting{"))
      .map((line) => Number(line.split(" ").pop()));
    if (waiting.every((n) => n === 0)) return;
    if (Date.now() > deadline) throw new Error(`the outbox did not settle: ${waiting.join(", ")}`);
    await Bun.sleep(100);
  }
}

const running: RunningServer[] = [];
afterAll(() => {
  for (const s of running) s.proc.kill("SIGKILL");
});

/** Every row of every table (ours and the migrations' bookkeeping), as sorted JSON, by table. */
async function contents(pgdata: string): Promise<Record<string, string[]>> {
  const db: Database = await openPglite(pgdata);
  try {
    const tables = await queryRows<{ name: string }>(
      db.db,
      sql`select quote_ident(table_schema) || '.' || quote_ident(table_name) as name from information_schema.tables where table_schema in ('public', 'drizzle') and table_type = 'BASE TABLE' order by 1`,
    );
    const out: Record<string, string[]> = {};
    for (const { name } of tables) {
      const rows = await queryRows<{ r: string }>(db.db, sql.raw(`select to_jsonb(t)::text as r from ${name} t`));
      out[name] = rows.map((row) => row.r).sort();
    }
    return out;
  } finally {
    await db.close();
  }
}

/** An org with docs and a connector whose bearer token is stored encrypted, written by our own services. */
async function seed(dataDir: string) {
  const services = await openServices(loadConfig({ DATA_DIR: dataDir, ...ENV }), createLogger("error"));
  try {
    const { deps } = services;
    const org = await createOrg(deps, { name: "Backup Co", adminEmail: OWNER.email, adminPassword: OWNER.password, flags: ["mcp_external_servers"] });
    await connect(deps, org.org_id, systemActor("test"), {
      name: "Vault",
      slug: "vault",
      url: `http://127.0.0.1:${freePort()}/mcp`,
      auth_method: "bearer",
      credentials: { token: TOKEN },
    });
    for (let i = 0; i < 5; i++)
      await createDoc(deps, org.org_id, { title: `Returns ${i}`, body: `Parcels come back within ${i + 14} days.`, tags: ["policy"], status: "published" });
    return org;
  } finally {
    await services.close();
  }
}

describe.skipIf(engine !== "pglite")("backup while serving, restore, serve again", () => {
  const work = tempDir("svc-backup-");
  const original = join(work, "original");
  const restored = join(work, "restored");
  const file = join(work, "backup.tar");
  let org: Awaited<ReturnType<typeof seed>>;

  beforeAll(async () => {
    await seedDataDir(original);
  });

  test("a backup taken through the running server restores into a new DATA_DIR with every row of every table, and the encrypted fields decrypt", async () => {
    org = await seed(original);
    const a = await startServer({ DATA_DIR: original, ...ENV });
    running.push(a);
    // More writes through the serving process: an org by the admin socket, tickets by the widget API.
    const second = await runCli(
      ["--via-server", "org", "create", "--name", "Second", "--admin-email", "second@backup.example", "--admin-password", "second-password"],
      { DATA_DIR: original },
    );
    expect(second.code).toBe(0);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${a.url}/api/sdk/tickets/create`, {
        method: "POST",
        headers: { authorization: `Bearer ${org.widget_key}`, "content-type": "application/json" },
        body: JSON.stringify({ user_id: `customer-${i}`, subject: `Parcel ${i}`, message: "Where is my parcel?" }),
      });
      expect(res.status).toBe(201);
    }
    await outboxSettled(a.url);

    // The server keeps answering requests that read the database while the backup is taken.
    let backingUp = true;
    const answered: number[] = [];
    const reader = (async () => {
      while (backingUp) {
        answered.push((await fetch(`${a.url}/readyz`)).status); // it counts pending migrations
        await Bun.sleep(10);
      }
    })();
    const backup = await runCli(["--via-server", "backup", "--out", file], { DATA_DIR: original });
    backingUp = false;
    await reader;
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({ file, migrations: expect.any(Number), secret_key_included: true });
    expect(answered.length).toBeGreaterThan(0);
    expect(new Set(answered)).toEqual(new Set([200]));
    expect(statSync(file).mode & 0o777).toBe(0o600); // it holds the secret key
    expect([...unpackTar(new Uint8Array(readFileSync(file))).keys()]).toEqual(["manifest.json", "secret.key", "pgdata.tar.gz"]);
    expect(await a.stop()).toBe(0);

    const restore = await runCli(["restore", "--in", file], { DATA_DIR: restored });
    expect(restore.stderr).toBe("");
    expect(restore.code).toBe(0);
    expect(readdirSync(restored).sort()).toEqual(["pgdata", "secret.key"]);
    expect(readFileSync(join(restored, "secret.key"), "utf8")).toBe(readFileSync(join(original, "secret.key"), "utf8"));
    expect(statSync(join(restored, "secret.key")).mode & 0o777).toBe(0o600);

    const before = await contents(join(original, "pgdata"));
    const after = await contents(join(restored, "pgdata"));
    expect(Object.keys(after)).toEqual(Object.keys(before));
    for (const table of Object.keys(before)) expect([table, after[table]]).toEqual([table, before[table]!]);
    // The comparison covered what was seeded, not empty tables.
    expect(before["public.docs"]).toHaveLength(5);
    expect(before["public.tickets"]).toHaveLength(3);
    expect(before["public.orgs"]).toHaveLength(2);
    expect(before["public.connectors"]).toHaveLength(1);

    const b = await startServer({ DATA_DIR: restored, ...ENV });
    running.push(b);
    // It serves the restored org, and starting on it changed nothing but the rate-limit counters
    // its one request wrote.
    const config = await fetch(`${b.url}/api/sdk/config?org_id=${org.org_id}`);
    expect(config.status).toBe(200);
    expect(await b.stop()).toBe(0);
    const served = await contents(join(restored, "pgdata"));
    for (const table of Object.keys(before)) if (table !== "public.rate_limit_counters") expect([table, served[table]]).toEqual([table, before[table]!]);

    // The restored server's key reads the credentials the original encrypted.
    const services = await openServices(loadConfig({ DATA_DIR: restored, ...ENV }), createLogger("error"));
    try {
      const [row] = await services.deps.db.select().from(connectors);
      expect(row!.credentials.token).not.toContain(TOKEN);
      expect(services.deps.cipher.decrypt(row!.credentials.token!, `connectors.credentials.token:${row!.id}`)).toBe(TOKEN);
    } finally {
      await services.close();
    }
  }, 180_000);

  test("restore refuses a non-empty DATA_DIR without --force and leaves it as it was; with --force it replaces it", async () => {
    const marker = join(restored, "keep-me");
    writeFileSync(marker, "x");
    const refused = await runCli(["restore", "--in", file], { DATA_DIR: restored });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--force");
    expect(readdirSync(restored).sort()).toEqual(["keep-me", "pgdata", "secret.key"]);

    const forced = await runCli(["restore", "--in", file, "--force"], { DATA_DIR: restored });
    expect(forced.code).toBe(0);
    expect(readdirSync(restored).sort()).toEqual(["pgdata", "secret.key"]);
  }, 60_000);

  /** The backup with its manifest changed (and its database replaced, when given). */
  function altered(change: (manifest: Record<string, any>) => void, pgdata?: Uint8Array<ArrayBuffer>): string {
    const files = unpackTar(new Uint8Array(readFileSync(file)));
    const manifest = JSON.parse(new TextDecoder().decode(files.get("manifest.json")));
    change(manifest);
    const path = join(work, `altered-${crypto.randomUUID()}.tar`);
    const entries = [...files].map(([name, data]) => ({
      name,
      mode: 0o600,
      data: name === "manifest.json" ? new TextEncoder().encode(JSON.stringify(manifest)) : name === "pgdata.tar.gz" && pgdata ? pgdata : data,
    }));
    writeFileSync(path, packTar(entries, 0));
    return path;
  }

  test("restore refuses a backup from a newer schema or a newer format, a file that is not a backup, and a SECRET_KEY that is not the data's; the target stays untouched", async () => {
    const target = join(work, "untouched");
    const junk = join(work, "junk.tar");
    writeFileSync(junk, "not a tar archive at all");
    const cases: [string, string, Record<string, string>][] = [
      [altered((m) => (m.schema.last_when += 1)), "newer than this svc-agents knows", {}],
      [altered((m) => (m.schema.migrations += 1)), "newer than this svc-agents knows", {}],
      [altered((m) => (m.version += 1)), "format version 2", {}],
      [junk, "not a svc-agents backup", {}],
      [file, "SECRET_KEY is not the key", { SECRET_KEY: Buffer.alloc(32, 7).toString("base64") }],
    ];
    for (const [path, message, env] of cases) {
      const res = await runCli(["restore", "--in", path], { DATA_DIR: target, ...env });
      expect([message, res.code, res.stdout]).toEqual([message, 1, ""]);
      expect(res.stderr).toContain(message);
      expect(existsSync(target)).toBe(false);
    }
  }, 60_000);

  test("a restore whose database cannot be opened fails and leaves the old DATA_DIR whole, with nothing half-restored beside it", async () => {
    const before = readdirSync(restored).sort();
    const damaged = altered(() => {}, new Uint8Array(Bun.gzipSync(new TextEncoder().encode("not a data directory"))));
    const res = await runCli(["restore", "--in", damaged, "--force"], { DATA_DIR: restored });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("could not be opened");
    expect(readdirSync(restored).sort()).toEqual(before);
    const again = await runCli(["backup", "--out", join(work, "after-failed-restore.tar")], { DATA_DIR: restored });
    expect(again.code).toBe(0); // the old database is still there and opens
  }, 60_000);

  test("backup needs --via-server while a server runs, and a server to reach with it", async () => {
    const noServer = await runCli(["--via-server", "backup", "--out", join(work, "none.tar")], { DATA_DIR: join(work, "nobody") });
    expect(noServer.code).toBe(1);
    expect(noServer.stderr).toContain("no svc-agents server is running");
    const server = await startServer({ DATA_DIR: restored, ...ENV });
    running.push(server);
    const busy = await runCli(["backup", "--out", join(work, "busy.tar")], { DATA_DIR: restored });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain("--via-server");
    const busyRestore = await runCli(["restore", "--in", file, "--force"], { DATA_DIR: restored });
    expect(busyRestore.code).toBe(1);
    expect(existsSync(join(work, "busy.tar"))).toBe(false);
    expect(await server.stop()).toBe(0);
  }, 90_000);
});

describe.skipIf(engine !== "pglite")("backup while the server writes", () => {
  test("every write acknowledged before the backup began is in it, and a ticket that raced it is there whole or not at all", async () => {
    const work = tempDir("svc-backup-raced-");
    const dataDir = join(work, "data");
    await seedDataDir(dataDir);
    const org = await seed(dataDir);
    const server = await startServer({ DATA_DIR: dataDir, ...ENV, SDK_TICKETS_PER_KEY_IP_PER_MINUTE: "100000" });
    running.push(server);
    type Phase = "before" | "during" | "after";
    const acked: { number: number; at: Phase }[] = [];
    const state: { phase: Phase } = { phase: "before" };
    const writer = (async () => {
      for (let i = 0; state.phase !== "after"; i++) {
        const res = await fetch(`${server.url}/api/sdk/tickets/create`, {
          method: "POST",
          headers: { authorization: `Bearer ${org.widget_key}`, "content-type": "application/json" },
          body: JSON.stringify({ user_id: `racer-${i % 7}`, subject: `Race ${i}`, message: `Message ${i}` }),
        });
        expect(res.status).toBe(201);
        acked.push({ number: ((await res.json()) as { number: number }).number, at: state.phase });
      }
    })();
    while (acked.length < 5) await Bun.sleep(20);
    state.phase = "during";
    const backup = await runCli(["--via-server", "backup", "--out", join(work, "raced.tar")], { DATA_DIR: dataDir });
    state.phase = "after";
    await writer;
    expect([backup.code, backup.stderr]).toEqual([0, ""]);
    expect(await server.stop()).toBe(0);
    expect(acked.filter((a) => a.at === "during").length).toBeGreaterThan(0); // writes ran while it was taken

    const into = join(work, "restored");
    expect((await runCli(["restore", "--in", join(work, "raced.tar")], { DATA_DIR: into })).code).toBe(0);
    const db = await openPglite(join(into, "pgdata"));
    try {
      const numbers = (await queryRows<{ number: number }>(db.db, sql`select number from tickets order by number`)).map((r) => r.number);
      for (const a of acked.filter((a) => a.at === "before")) expect(numbers).toContain(a.number);
      expect(numbers.length).toBeLessThanOrEqual(acked.length);
      expect(numbers).toEqual(numbers.map((_, i) => i + 1)); // a prefix: no ticket without those before it
      const [orphans] = await queryRows<{ n: number }>(
        db.db,
        sql`select count(*)::int as n from tickets t where not exists (select 1 from ticket_messages m where m.ticket_id = t.id)`,
      );
      expect(orphans!.n).toBe(0);
      const [counter] = await queryRows<{ last_number: number }>(db.db, sql`select last_number from ticket_counters`);
      expect(counter!.last_number).toBe(numbers.length);
    } finally {
      await db.close();
    }
  }, 180_000);
});

describe("backup and restore: invalid arguments exit 2 with a usage line and nothing on stdout", () => {
  const cases = [
    ["backup"],
    ["backup", "--out"],
    ["backup", "--out", "x.tar", "--force"],
    ["restore"],
    ["restore", "--in", "x.tar", "--out", "y"],
    ["restore", "--in", "x.tar", "extra"],
    ["--via-server", "restore", "--in", "x.tar"],
  ];
  for (const args of cases)
    test(args.join(" "), async () => {
      const res = await runCli(args, { DATA_DIR: tempDir() });
      expect(res.code).toBe(2);
      expect(res.stdout).toBe("");
      expect(res.stderr).toContain("usage: svc-agents");
    });

  test("with DATABASE_URL, backup and restore point to pg_dump and pg_restore", async () => {
    const env = { DATABASE_URL: "postgres://postgres@127.0.0.1:1/none", SECRET_KEY: Buffer.alloc(32, 1).toString("base64") };
    for (const args of [
      ["backup", "--out", join(tempDir(), "x.tar")],
      ["restore", "--in", "x.tar"],
    ]) {
      const res = await runCli(args, env);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain("pg_dump");
    }
  });
});
