// The soak's server instances: `bun src/main.ts serve` as child processes on fixed loopback
// ports (so a restarted instance comes back where the load generator expects it), each killable
// with SIGKILL or stopped with SIGTERM, and measured from /proc (resident memory, open files).
import { readdirSync, readFileSync } from "node:fs";
import { childEnv, MAIN, ROOT } from "../../test/support/process.ts";

export interface Instance {
  name: string;
  port: number;
  url: string;
  /** False from the moment a fault takes it away until it answers /readyz again. */
  up: boolean;
  proc: Bun.Subprocess<"ignore", "ignore", "pipe"> | null;
  /** Starts it and waits for /readyz 200. */
  start(): Promise<void>;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<number>;
  /** SIGTERM, then the exit code. */
  terminate(): Promise<number>;
  /** Resident memory (bytes) and open file descriptors, or null when not running. */
  usage(): { rss: number; fds: number } | null;
  stderrTail(): string;
  /** Exits nobody asked for (a crash), with their status and the end of stderr. */
  crashes: { at: number; code: number | null; stderr: string }[];
  /**
   * Error lines the instance logged over the whole run (across restarts), counted by message,
   * error class and SQLSTATE or driver code: what a 500 or a crash was (the log carries no data).
   */
  errors: Map<string, number>;
  /** Called after a crash was recorded (the soak restarts the instance, as a supervisor would). */
  onCrash?: () => void;
}

/** The key an error log line is counted under, or null for a line that is not an error. */
function errorKey(line: string): string | null {
  if (!line.includes('"level":"error"')) return null;
  try {
    const record = JSON.parse(line) as { msg?: string; error?: { error_class?: string; sqlstate?: string; code?: string; error?: string } };
    const e = record.error;
    return [
      record.msg,
      e?.error_class,
      e?.sqlstate ?? e?.code ?? (e?.error_class && !e.error?.startsWith("database error") ? e.error?.slice(0, 80) : undefined),
    ]
      .filter(Boolean)
      .join(" · ");
  } catch {
    return line.slice(0, 120);
  }
}

export function makeInstance(name: string, port: number, env: Record<string, string>): Instance {
  let errText = "";
  let expectExit = false;
  const inst: Instance = {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    up: false,
    proc: null,
    async start() {
      const proc = Bun.spawn([process.execPath, MAIN, "serve"], {
        env: childEnv({ ...env, PORT: String(port) }),
        cwd: ROOT,
        stdin: "ignore",
        stdout: "ignore",
        stderr: "pipe",
      });
      inst.proc = proc;
      expectExit = false;
      errText = "";
      void proc.exited.then((code) => {
        // Only a process that had become ready and then exited unasked is a crash; one that fails
        // to start (its database away) is the caller's to retry.
        if (expectExit || inst.proc !== proc || !inst.up) return;
        inst.up = false;
        inst.crashes.push({ at: Date.now(), code, stderr: errText.slice(-3000) });
        inst.onCrash?.();
      });
      void (async () => {
        const decoder = new TextDecoder();
        let partial = "";
        for await (const chunk of proc.stderr) {
          const text = decoder.decode(chunk, { stream: true });
          errText = (errText + text).slice(-20_000);
          const lines = (partial + text).split("\n");
          partial = lines.pop()!;
          for (const line of lines) {
            const key = errorKey(line);
            if (key) inst.errors.set(key, (inst.errors.get(key) ?? 0) + 1);
          }
        }
      })();
      const deadline = Date.now() + 90_000;
      for (;;) {
        if (proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode}: ${errText.slice(-2000)}`);
        try {
          if ((await fetch(`${inst.url}/readyz`, { signal: AbortSignal.timeout(2000) })).status === 200) break;
        } catch {}
        if (Date.now() > deadline) throw new Error(`${name} did not become ready: ${errText.slice(-2000)}`);
        await Bun.sleep(200);
      }
      inst.up = true;
    },
    async kill() {
      inst.up = false;
      expectExit = true;
      inst.proc?.kill("SIGKILL");
      return (await inst.proc?.exited) ?? 0;
    },
    async terminate() {
      inst.up = false;
      expectExit = true;
      inst.proc?.kill("SIGTERM");
      return (await inst.proc?.exited) ?? 0;
    },
    usage() {
      const pid = inst.proc?.pid;
      if (pid === undefined || inst.proc?.exitCode !== null) return null;
      try {
        const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
        return { rss: rssKb * 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
      } catch {
        return null;
      }
    },
    stderrTail: () => errText.slice(-4000),
    crashes: [],
    errors: new Map(),
  };
  return inst;
}
