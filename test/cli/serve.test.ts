// `serve` as a real process: first start with the demo seed, restart keeping data, the embedded
// database's single-process lock, and graceful shutdown. Its standard output is a pipe, as in a
// container: the demo password goes to a 0600 file in DATA_DIR, never to the output or the log.
import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createTestDatabase, engine, seedDataDir, type TestDatabase } from "../support/db.ts";
import { DEMO_PASSWORD_FILE } from "../../src/orgs/demo-password.ts";
import { runCli, type RunningServer, startServer, tempDir } from "../support/process.ts";
import { rejectionOf } from "../support/settle.ts";

const running: RunningServer[] = [];
afterAll(() => {
  for (const s of running) s.proc.kill("SIGKILL");
});

async function start(env: Record<string, string>) {
  const server = await startServer(env);
  running.push(server);
  return server;
}

async function session(url: string, email: string, password: string) {
  const res = await fetch(`${url}/api/auth/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  return res;
}

function banner(stdout: string) {
  const field = (label: string) => new RegExp(`^${label}:\\s+(\\S+)`, "m").exec(stdout)?.[1];
  return { signin: field("Sign in"), email: field("Demo admin"), passwordLine: /^Password:.*$/m.exec(stdout)?.[0], widgetKey: field("Widget key") };
}

/** The first start's banner names the password file instead of printing the password; the file holds it, mode 0600, and nothing else shows it. */
function passwordFromFile(server: RunningServer, dataDir: string): string {
  const path = join(dataDir, DEMO_PASSWORD_FILE);
  expect(banner(server.stdout()).passwordLine).toBe(
    `Password:    in ${path}   (standard output is not a terminal, so it is not printed; delete the file once you have signed in)`,
  );
  expect(statSync(path).mode & 0o777).toBe(0o600);
  const password = readFileSync(path, "utf8").trim();
  expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);
  expect(server.stdout()).not.toContain(password);
  expect(server.stderr()).not.toContain(password);
  return password;
}

describe.skipIf(engine !== "pglite")("embedded PGlite", () => {
  const dataDir = tempDir();

  test("first start: ready, demo seeded, sign-in details printed; SIGTERM exits 0 and releases the lock", async () => {
    const server = await start({ DATA_DIR: dataDir });
    const printed = banner(server.stdout());
    expect(printed.signin).toBe(`${server.url.replace("127.0.0.1", "localhost")}/signin`);
    expect(printed.email).toBe("admin@demo.example");
    expect(printed.widgetKey).toMatch(/^ab_live_/);
    expect((await session(server.url, printed.email!, passwordFromFile(server, dataDir))).status).toBe(200);
    expect(statSync(join(dataDir, "secret.key")).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dataDir, "svc-agents.lock"))).toBe(true);

    // While it runs, the CLI refuses the same DATA_DIR at once instead of corrupting it.
    const started = Date.now();
    const busy = await runCli(["org", "create", "--name", "Late", "--admin-email", "late@example.com", "--admin-password", "long-enough"], {
      DATA_DIR: dataDir,
    });
    expect(busy.code).toBe(1);
    expect(busy.stdout).toBe("");
    expect(busy.stderr).toContain(`in use by another svc-agents process (pid ${server.proc.pid})`);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(busy.stderr).toContain("--via-server");

    // …and runs it through the server when asked to.
    const via = await runCli(["--via-server", "org", "create", "--name", "Via", "--admin-email", "via@example.com", "--admin-password", "via-password"], {
      DATA_DIR: dataDir,
    });
    expect(via.code).toBe(0);
    expect(JSON.parse(via.stdout).admin_email).toBe("via@example.com");
    expect((await session(server.url, "via@example.com", "via-password")).status).toBe(200);
    const viaBad = await runCli(["--via-server", "org", "flag", "--org", crypto.randomUUID(), "--name", "mcp_external_servers", "--on"], { DATA_DIR: dataDir });
    expect(viaBad.code).toBe(1);
    expect(viaBad.stderr).toContain("No organisation with id");
    expect(statSync(join(dataDir, "admin.sock")).mode & 0o777).toBe(0o600);

    expect((await runCli(["healthcheck"], { PORT: new URL(server.url).port })).code).toBe(0);

    expect(await server.stop()).toBe(0);
    expect(existsSync(join(dataDir, "svc-agents.lock"))).toBe(false);
    expect(existsSync(join(dataDir, "admin.sock"))).toBe(false);
    expect((await runCli(["healthcheck"], { PORT: new URL(server.url).port })).code).toBe(1);
    const noServer = await runCli(["--via-server", "migrate"], { DATA_DIR: dataDir });
    expect(noServer.code).toBe(1);
    expect(noServer.stderr).toContain("no svc-agents server is running");
  });

  test("restart with the same DATA_DIR keeps an org created in between; the password is not printed again", async () => {
    const created = await runCli(["org", "create", "--name", "Kept", "--admin-email", "kept@example.com", "--admin-password", "kept-password"], {
      DATA_DIR: dataDir,
    });
    expect(created.code).toBe(0);
    const orgId = JSON.parse(created.stdout).org_id as string;

    const server = await start({ DATA_DIR: dataDir });
    const printed = banner(server.stdout());
    expect(printed.email).toBe("admin@demo.example");
    expect(printed.passwordLine).toBe(`Password:    in ${join(dataDir, DEMO_PASSWORD_FILE)}   (written at the first start)`);
    const res = await session(server.url, "kept@example.com", "kept-password");
    expect(res.status).toBe(200);
    const { token } = (await res.json()) as { token: string };
    const me = (await (await fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as { orgs: { id: string }[] };
    expect(me.orgs.map((o) => o.id)).toEqual([orgId]);
    expect(await server.stop()).toBe(0);
  });

  test("a stale lock left by a killed process is taken over", async () => {
    const server = await start({ DATA_DIR: dataDir, SEED_DEMO: "0" });
    server.proc.kill("SIGKILL");
    await server.proc.exited;
    expect(existsSync(join(dataDir, "svc-agents.lock"))).toBe(true);
    const result = await runCli(["migrate"], { DATA_DIR: dataDir });
    expect(result.code).toBe(0);
  });
});

describe.skipIf(engine !== "postgres")("PostgreSQL", () => {
  let db: TestDatabase;
  afterAll(() => db?.close());

  test("DATABASE_URL: ready, and a restart keeps the org created in between", async () => {
    db = await createTestDatabase();
    const dataDir = join(tempDir(), "not-yet-made");
    const env = { DATABASE_URL: db.url!, SECRET_KEY: randomBytes(32).toString("base64"), DATA_DIR: dataDir };
    const first = await start(env);
    const printed = banner(first.stdout());
    expect(printed.email).toBe("admin@demo.example");
    // DATA_DIR holds no database here; it is made to keep the password file.
    expect((await session(first.url, "admin@demo.example", passwordFromFile(first, dataDir))).status).toBe(200);
    expect(first.stdout()).toContain("(PostgreSQL)");
    // With PostgreSQL, admin commands run while the server is up.
    const created = await runCli(["org", "create", "--name", "Kept", "--admin-email", "kept@example.com", "--admin-password", "kept-password"], env);
    expect(created.code).toBe(0);
    expect(await first.stop()).toBe(0);

    const second = await start(env);
    expect((await session(second.url, "kept@example.com", "kept-password")).status).toBe(200);
    expect(banner(second.stdout()).passwordLine).toBe(`Password:    in ${join(dataDir, DEMO_PASSWORD_FILE)}   (written at the first start)`);
    expect(await second.stop()).toBe(0);
  });

  test("without SECRET_KEY, DATABASE_URL is refused at boot", async () => {
    const result = await runCli(["migrate"], { DATABASE_URL: db.url! });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("SECRET_KEY is required when DATABASE_URL is set");
  });
});

test("graceful shutdown: a request in flight when SIGTERM arrives is answered, then the process exits 0", async () => {
  let env: Record<string, string>;
  let db: TestDatabase | undefined;
  if (engine === "postgres") {
    db = await createTestDatabase();
    env = { DATABASE_URL: db.url!, SECRET_KEY: randomBytes(32).toString("base64"), SEED_DEMO: "0" };
  } else {
    const dataDir = tempDir();
    await seedDataDir(dataDir); // a later start (the first, from an empty directory, is tested above)
    env = { DATA_DIR: dataDir, SEED_DEMO: "0" };
  }
  try {
    const server = await start(env);
    // A request whose body is still arriving: in flight from the server's point of view.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('{"email":"slow@example.com",'));
        await gate;
        controller.enqueue(new TextEncoder().encode('"password":"whatever-it-is"}'));
        controller.close();
      },
    });
    const inFlight = fetch(`${server.url}/api/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    await Bun.sleep(300);
    server.proc.kill("SIGTERM");
    await Bun.sleep(300);
    expect(server.proc.exitCode).toBeNull(); // still finishing the request
    // New connections are no longer accepted.
    expect(await rejectionOf(fetch(`${server.url}/healthz`))).toBeInstanceOf(Error);
    release();
    const res = await inFlight;
    expect(res.status).toBe(401);
    expect(await server.proc.exited).toBe(0);
  } finally {
    await db?.close();
  }
});
