// `svc-agents user reset-password`, run as a real process: on a stopped instance (both engines) it
// prints a one-time link valid for an hour that a server then honours once; with --password-stdin it
// sets the password read from standard input (never from argv); through a running embedded server
// (--via-server) it does both, and the member's sessions end.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { childEnv, MAIN, ROOT, runCli, type RunningServer, startServer, tempDir } from "../support/process.ts";
import { createTestDatabase, engine, seedDataDir, type TestDatabase } from "../support/db.ts";

const running: RunningServer[] = [];
afterAll(() => {
  for (const s of running) s.proc.kill("SIGKILL");
});

/** The CLI with `input` on its standard input. */
async function runWithInput(args: string[], env: Record<string, string>, input: string) {
  const proc = Bun.spawn([process.execPath, MAIN, ...args], { env: childEnv(env), stdout: "pipe", stderr: "pipe", stdin: new Blob([input]), cwd: ROOT });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function session(url: string, email: string, password: string) {
  return fetch(`${url}/api/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
}

async function useLink(url: string, link: string, password: string) {
  const path = new URL(link).pathname;
  return fetch(`${url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: url.replace("127.0.0.1", "localhost") },
    body: new URLSearchParams({ password }).toString(),
  });
}

describe(`on a stopped instance (${engine})`, () => {
  let env: Record<string, string>;
  let testDb: TestDatabase | undefined;
  const email = "owner@reset.example";

  beforeAll(async () => {
    if (engine === "postgres") {
      testDb = await createTestDatabase();
      env = { DATABASE_URL: testDb.url!, SECRET_KEY: randomBytes(32).toString("base64"), SEED_DEMO: "0" };
    } else {
      const dataDir = tempDir();
      await seedDataDir(dataDir);
      env = { DATA_DIR: dataDir, SEED_DEMO: "0" };
    }
    const created = await runCli(["org", "create", "--name", "Reset Org", "--admin-email", email, "--admin-password", "first-password"], env);
    expect(created.code).toBe(0);
  }, 60_000);
  afterAll(() => testDb?.close());

  test("an unknown address exits 1; a bad --email is a usage error", async () => {
    const unknown = await runCli(["user", "reset-password", "--email", "nobody@reset.example"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No member has the email");
    const bad = await runCli(["user", "reset-password", "--email", "not-an-address"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--email must be an email address");
  });

  test("prints a one-time link valid for an hour; a server honours it once", async () => {
    const result = await runCli(["user", "reset-password", "--email", "Owner@Reset.example"], env);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as { email: string; link: string; expires_at: string };
    expect(printed.email).toBe(email);
    expect(printed.link).toMatch(/\/reset-password\/svc_pwr_[A-Za-z0-9_-]{43}$/);
    const hours = (Date.parse(printed.expires_at) - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(0.9);
    expect(hours).toBeLessThanOrEqual(1);

    const server = await startServer(env);
    running.push(server);
    try {
      const page = await fetch(`${server.url}${new URL(printed.link).pathname}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(email);
      const used = await useLink(server.url, printed.link, "second-password");
      expect(used.status).toBe(303);
      expect(used.headers.get("location")).toBe("/signin?reset=1");
      expect((await session(server.url, email, "second-password")).status).toBe(200);
      expect((await session(server.url, email, "first-password")).status).toBe(401);
      const again = await useLink(server.url, printed.link, "third-password");
      expect(again.status).toBe(410);
      expect(server.stdout() + server.stderr()).not.toContain(new URL(printed.link).pathname.split("/").pop()!);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 90_000);

  test("--password-stdin sets the password read from standard input", async () => {
    const result = await runWithInput(["user", "reset-password", "--email", email, "--password-stdin"], env, "from-stdin-pw\n");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ email, password_set: true });
    const short = await runWithInput(["user", "reset-password", "--email", email, "--password-stdin"], env, "short\n");
    expect(short.code).toBe(1);
    expect(short.stderr).toContain("Choose a password of 8");
  });
});

describe.skipIf(engine !== "pglite")("through a running embedded server (--via-server)", () => {
  test("a link and a password from standard input; the member's sessions end", async () => {
    const dataDir = tempDir();
    await seedDataDir(dataDir);
    const env = { DATA_DIR: dataDir, SEED_DEMO: "0" };
    const server = await startServer(env);
    running.push(server);
    try {
      const created = await runCli(
        ["--via-server", "org", "create", "--name", "Via Org", "--admin-email", "via@reset.example", "--admin-password", "via-password"],
        env,
      );
      expect(created.code).toBe(0);
      const before = (await (await session(server.url, "via@reset.example", "via-password")).json()) as { token: string };
      const me = () => fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${before.token}` } });
      expect((await me()).status).toBe(200);

      const set = await runWithInput(["--via-server", "user", "reset-password", "--email", "via@reset.example", "--password-stdin"], env, "piped-password\n");
      expect(set.code).toBe(0);
      expect(JSON.parse(set.stdout)).toEqual({ email: "via@reset.example", password_set: true });
      expect((await me()).status).toBe(401);
      expect((await session(server.url, "via@reset.example", "piped-password")).status).toBe(200);
      expect(server.stdout() + server.stderr()).not.toContain("piped-password");

      const link = await runCli(["--via-server", "user", "reset-password", "--email", "via@reset.example"], env);
      expect(link.code).toBe(0);
      const printed = JSON.parse(link.stdout) as { link: string };
      expect((await useLink(server.url, printed.link, "linked-password")).status).toBe(303);
      expect((await session(server.url, "via@reset.example", "linked-password")).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 120_000);
});
