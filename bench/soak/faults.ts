// The soak's fault schedule: what is injected, when (seconds after the load starts), and for how
// long. Each fault is printed as it starts and ends, and kept as a window for the charts and for
// classifying what happened inside it.
import type { Instance } from "./instances.ts";
import type { PrivatePostgres } from "./postgres.ts";
import type { HookReceiver, MailReceiver } from "./receivers.ts";

export interface FaultWindow {
  name: string;
  /** ms since the load began. */
  start: number;
  end: number;
}

export interface Fault {
  at: number;
  name: string;
  run(): Promise<void>;
}

export interface Targets {
  pg: PrivatePostgres;
  instances: Instance[];
  smtp: MailReceiver;
  hooks: HookReceiver[];
}

/** Instance restarts: SIGKILL or SIGTERM, then start it again on its port. */
function restart(inst: Instance, how: "kill" | "term"): () => Promise<void> {
  return async () => {
    const code = how === "kill" ? await inst.kill() : await inst.terminate();
    console.log(`  ${inst.name} exited (${how === "kill" ? "SIGKILL" : `SIGTERM, status ${code}`}); starting it again`);
    await inst.start();
  };
}

/**
 * The full schedule for `seconds` of load (600 by default): one of each fault, spaced so every
 * window has a quiet stretch after it. Under 300 s, the short mode: one PostgreSQL restart and one
 * instance killed and restarted.
 */
export function schedule(seconds: number, t: Targets): Fault[] {
  const [, b, c] = t.instances as [Instance, Instance, Instance];
  if (seconds < 300)
    return [
      { at: Math.round(seconds * 0.25), name: "PostgreSQL restart", run: () => t.pg.restart() },
      { at: Math.round(seconds * 0.55), name: `kill -9 of ${c.name} and its restart`, run: restart(c, "kill") },
    ];
  const s = (fraction: number) => Math.round(seconds * fraction);
  const hold = (sec: number) => Bun.sleep(sec * 1000);
  return [
    { at: s(0.1), name: "PostgreSQL restart", run: () => t.pg.restart() },
    { at: s(0.2), name: `SIGTERM of ${b.name} and its restart`, run: restart(b, "term") },
    {
      at: s(0.3),
      name: "SMTP down for 60 s",
      run: async () => {
        await t.smtp.down();
        await hold(60);
        await t.smtp.up();
      },
    },
    { at: s(0.45), name: `kill -9 of ${c.name} and its restart`, run: restart(c, "kill") },
    {
      at: s(0.55),
      name: `webhook receiver ${t.hooks[0]!.name} answering 503 for 60 s`,
      run: async () => {
        t.hooks[0]!.failing = true;
        await hold(60);
        t.hooks[0]!.failing = false;
      },
    },
    {
      at: s(0.7),
      name: "PostgreSQL outage of 30 s (stop, then start)",
      run: async () => {
        await t.pg.stop();
        await hold(30);
        await t.pg.start();
      },
    },
  ];
}

/** Runs the schedule against the clock that started at `start` (performance.now()); resolves when every fault has ended. */
export async function inject(faults: Fault[], start: number, windows: FaultWindow[]): Promise<void> {
  const running: Promise<void>[] = [];
  for (const fault of faults) {
    const wait = start + fault.at * 1000 - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    const begin = performance.now() - start;
    console.log(`[t=${(begin / 1000).toFixed(0)}s] fault: ${fault.name}`);
    running.push(
      fault.run().then(
        () => {
          const end = performance.now() - start;
          windows.push({ name: fault.name, start: begin, end });
          console.log(`[t=${(end / 1000).toFixed(0)}s] over: ${fault.name} (${((end - begin) / 1000).toFixed(1)} s)`);
        },
        (error) => {
          windows.push({ name: `${fault.name} (failed: ${String(error).slice(0, 200)})`, start: begin, end: performance.now() - start });
          console.log(`fault failed: ${fault.name}: ${error}`);
        },
      ),
    );
  }
  await Promise.all(running);
}
