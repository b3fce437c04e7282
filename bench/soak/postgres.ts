// A private PostgreSQL cluster for the soak: its own data directory and port, owned by the
// `postgres` account, so the soak may stop and restart it without touching any other server on the
// machine. Needs root (to run pg_ctl as `postgres` through runuser) and the Debian server packages.
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PrivatePostgres {
  url: string;
  port: number;
  /** pg_ctl restart -m fast: the server goes away and comes back (connections are cut). */
  restart(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its directory. */
  remove(): Promise<void>;
}

/** The newest installed server's bin directory, or null when there is none. */
export function postgresBin(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin/initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : null;
}

/** Whether this machine can run a private cluster: the binaries, root, and a `postgres` account. */
export function canRunPrivatePostgres(): boolean {
  return postgresBin() !== null && process.getuid?.() === 0 && Bun.spawnSync(["id", "-u", "postgres"]).exitCode === 0;
}

async function asPostgres(args: string[]): Promise<void> {
  const proc = Bun.spawn(["runuser", "-u", "postgres", "--", ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${args[0]} exited ${code}: ${err || out}`);
}

export async function startPrivatePostgres(port: number): Promise<PrivatePostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error("no PostgreSQL server binaries under /usr/lib/postgresql");
  const dir = mkdtempSync(join(tmpdir(), "svc-soak-pg-"));
  chmodSync(dir, 0o755);
  Bun.spawnSync(["chown", "postgres:postgres", dir]);
  const data = join(dir, "data");
  await asPostgres([join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=on`;
  const ctl = (...args: string[]) => asPostgres([join(bin, "pg_ctl"), "-D", data, "-l", join(dir, "server.log"), "-w", "-t", "60", ...args]);
  const pg: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restart: () => ctl("-m", "fast", "-o", options, "restart"),
    stop: () => ctl("-m", "fast", "stop"),
    start: () => ctl("-o", options, "start"),
    async remove() {
      await ctl("-m", "immediate", "stop").catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await pg.start();
  return pg;
}
