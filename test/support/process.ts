// Running the real thing: `bun src/main.ts …` (or the compiled binary) as a child process, the
// way `npm start` and `npm run cli` do.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "../..");
export const MAIN = join(ROOT, "src/main.ts");

export function tempDir(prefix = "svc-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A port that was free a moment ago, chosen below the kernel's ephemeral range (32768–60999 on
 * Linux, /proc/sys/net/ipv4/ip_local_port_range). A port the kernel hands out itself (port 0) can
 * be given next to any outgoing connection of a busy machine, so a listener that closes and opens
 * again on the same number (a database proxy's cut and restore, an instance restarted after
 * kill -9) could find it taken; one below that range is only ever taken by another listener.
 */
export function freePort(): number {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    try {
      const listener = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
      listener.stop(true);
      return port;
    } catch {
      // taken: try another
    }
  }
  throw new Error("no free port below the ephemeral range");
}

/** The environment for a child: ours minus anything that would change its configuration. */
export function childEnv(env: Record<string, string | undefined>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (
      v === undefined ||
      /^(PORT|HOST|BASE_URL|DATABASE_URL|DATA_DIR|SECRET_KEY|NODE_ENV|LOG_LEVEL|SEED_DEMO|TRUST_PROXY|SESSION_TTL_HOURS|OAUTH_[A-Z_]+|ACTION_RATE_LIMIT_PER_MINUTE|MCP_TOKEN_LIMIT_[A-Z_]+|CONNECTOR_DISCOVERY_INTERVAL_SECONDS|LLM_[A-Z_]+)$/.test(
        k,
      )
    )
      continue;
    base[k] = v;
  }
  for (const [k, v] of Object.entries(env)) if (v !== undefined) base[k] = v;
  return base;
}

/** Runs `source` in a fresh Bun with extra environment (read at its start-up); returns its stdout parsed as JSON. */
export async function jsonFromChildBun(source: string, env: Record<string, string>): Promise<unknown> {
  const proc = Bun.spawn([process.execPath, "-e", source], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`child exited ${code}: ${err}`);
  return JSON.parse(out);
}

/**
 * The demo admin's password from a start banner. A child's standard output is a pipe, not a
 * terminal, so the banner names the file in DATA_DIR that holds it (README "Start").
 */
export function bannerPassword(stdout: string): string | undefined {
  const file = /^Password:\s+in (\S+)/m.exec(stdout)?.[1];
  return file === undefined ? undefined : readFileSync(file, "utf8").trim();
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(args: string[], env: Record<string, string | undefined>, command: string[] = [process.execPath, MAIN]): Promise<CliResult> {
  const proc = Bun.spawn([...command, ...args], { env: childEnv(env), stdout: "pipe", stderr: "pipe", stdin: "ignore", cwd: env.CWD ?? ROOT });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

export interface RunningServer {
  url: string;
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number>;
}

async function drain(stream: ReadableStream<Uint8Array>, into: string[]) {
  const decoder = new TextDecoder();
  for await (const chunk of stream) into.push(decoder.decode(chunk, { stream: true }));
}

/** Starts `serve` and waits until /readyz answers 200. */
export async function startServer(
  env: Record<string, string | undefined>,
  command: string[] = [process.execPath, MAIN, "serve"],
  timeoutMs = 60_000,
): Promise<RunningServer> {
  const port = env.PORT ? Number(env.PORT) : freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn(command, {
    env: childEnv({ LOG_LEVEL: "info", ...env, PORT: String(port) }),
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
    cwd: env.CWD ?? ROOT,
  });
  const out: string[] = [];
  const err: string[] = [];
  void drain(proc.stdout, out);
  void drain(proc.stderr, err);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}: ${err.join("")}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) break;
    } catch {}
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`server did not become ready: ${err.join("")}`);
    }
    await Bun.sleep(100);
  }
  return {
    url,
    proc,
    stdout: () => out.join(""),
    stderr: () => err.join(""),
    async stop() {
      proc.kill("SIGTERM");
      return proc.exited;
    },
  };
}
