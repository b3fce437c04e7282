// One soak run, start to finish: a private PostgreSQL, the receivers, three instances, the org,
// the load and the fault schedule, the drain, the checks; everything it started is stopped and
// removed at the end, whatever happened. Used by `npm run soak` (run.ts) and by the short test.
import { randomBytes } from "node:crypto";
import { cpus, loadavg } from "node:os";
import postgres from "postgres";
import { freePort } from "../../test/support/process.ts";
import { type FaultWindow, inject, schedule } from "./faults.ts";
import { type Instance, makeInstance } from "./instances.ts";
import { checkInvariants, type Check, pendingWork } from "./invariants.ts";
import { startLoad, type Sample } from "./load.ts";
import { startPrivatePostgres } from "./postgres.ts";
import { startHookReceiver, startMailReceiver } from "./receivers.ts";
import { type DepthSample, requestChecks, type UsageSample, usageChecks } from "./report.ts";
import { setUpOrg } from "./setup.ts";

export interface SoakOptions {
  seconds: number;
  workers: number;
  /** Pause of each worker between its requests (keeps the load below saturation on a small machine). */
  pauseMs: number;
  /** The longest wait for the outbox to drain after the load. */
  drainSeconds: number;
  /** No request may stay open longer than this. */
  boundSeconds: number;
  log?: (line: string) => void;
}

export interface SoakResult {
  samples: Sample[];
  depth: DepthSample[];
  windows: FaultWindow[];
  checks: Check[];
  /** Checks about the data only (acknowledged writes, mail, webhooks, outbox): what the test asserts. */
  dataChecks: Check[];
  notes: string[];
}

const RETRY_SCHEDULE = "5s,10s,20s,30s,60s,60s,60s,60s,60s,60s";

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  // Ctrl-C or a SIGTERM still stops the instances and removes the private cluster.
  const onSignal = () => void Promise.allSettled(cleanup.reverse().map((f) => f())).then(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const pg = await startPrivatePostgres(freePort());
    cleanup.push(() => pg.remove());
    log(`private PostgreSQL on 127.0.0.1:${pg.port}`);
    const smtp = await startMailReceiver(freePort());
    cleanup.push(() => smtp.close());
    const hooks = [startHookReceiver("a"), startHookReceiver("b")];
    cleanup.push(() => hooks.forEach((h) => h.close()));
    const ports = [freePort(), freePort(), freePort()];
    const env: Record<string, string> = {
      DATABASE_URL: pg.url,
      SECRET_KEY: randomBytes(32).toString("base64"),
      BASE_URL: `http://127.0.0.1:${ports[0]}`,
      NODE_ENV: "development",
      LOG_LEVEL: "error",
      SEED_DEMO: "0",
      SMTP_URL: smtp.url,
      MAIL_FROM: "soak@example.com",
      WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE,
      MCP_TOKEN_LIMIT_CALL_PER_MINUTE: "100000000",
      ACTION_RATE_LIMIT_PER_MINUTE: "100000000",
      SDK_RATE_LIMIT_PER_KEY_IP_PER_MINUTE: "100000000",
      SDK_RATE_LIMIT_PER_ORG_PER_MINUTE: "100000000",
      SDK_TICKETS_PER_KEY_IP_PER_MINUTE: "100000000",
      METRICS_TOKEN: randomBytes(24).toString("base64url"),
    };
    const instances: Instance[] = ports.map((p, i) => makeInstance(`instance-${"ABC"[i]}`, p, env));
    cleanup.push(() => Promise.all(instances.map((i) => (i.proc?.exitCode === null ? i.terminate() : 0))));
    const starts = new Map<string, number>();
    const startAt = (inst: Instance) => {
      const original = inst.start;
      inst.start = async () => {
        await original();
        starts.set(inst.name, performance.now() - loadStart);
      };
    };
    let loadStart = performance.now();
    instances.forEach(startAt);
    let running = true;
    for (const inst of instances) {
      let restarting = false;
      inst.onCrash = () => {
        const crash = inst.crashes[inst.crashes.length - 1]!;
        log(
          `[t=${((performance.now() - loadStart) / 1000).toFixed(0)}s] ${inst.name} exited on its own (status ${crash.code}); restarting it as a supervisor would. Its last log lines:\n${crash.stderr.split("\n").slice(-6).join("\n")}`,
        );
        if (restarting) return;
        restarting = true;
        void (async () => {
          while (running) {
            try {
              await inst.start();
              break;
            } catch {
              await Bun.sleep(2000);
            }
          }
          restarting = false;
        })();
      };
    }
    cleanup.push(() => (running = false));
    await instances[0]!.start();
    const org = await setUpOrg(instances[0]!.url, env, hooks);
    await Promise.all(instances.slice(1).map((i) => i.start()));
    log(`three instances up: ${instances.map((i) => i.url).join(", ")}; load for ${o.seconds} s`);

    const loadBefore = loadavg()[0]!.toFixed(1);
    loadStart = performance.now();
    const startEpoch = Date.now();
    for (const i of instances) starts.set(i.name, 0);
    const windows: FaultWindow[] = [];
    const depth: DepthSample[] = [];
    const usage: UsageSample[] = [];
    let sampling = true;
    const sampleLoop = (async () => {
      while (sampling) {
        const t = performance.now() - loadStart;
        for (const i of instances) {
          const u = i.usage();
          if (u) usage.push({ t, instance: i.name, ...u });
        }
        // Outbox depth from GET /metrics (README "Metrics"), not from a connection of our own: this
        // process holds no database connection while the faults run.
        const live = instances.find((i) => i.up);
        try {
          const text = live
            ? await (
                await fetch(`${live.url}/metrics`, { headers: { authorization: `Bearer ${env.METRICS_TOKEN}` }, signal: AbortSignal.timeout(1500) })
              ).text()
            : "";
          for (const m of text.matchAll(/^svc_outbox_waiting\{kind="([^"]+)"\} (\d+)/gm)) depth.push({ t, kind: m[1]!, waiting: Number(m[2]) });
        } catch {}
        await Bun.sleep(2000);
      }
    })();
    const load = startLoad(org, instances, { workers: o.workers, pauseMs: o.pauseMs, start: loadStart });
    const faults = inject(schedule(o.seconds, { pg, instances, smtp, hooks }), loadStart, windows);
    const progress = setInterval(() => {
      const recent = load.samples.filter((s) => s.at > performance.now() - loadStart - 10_000);
      log(
        `[t=${((performance.now() - loadStart) / 1000).toFixed(0)}s] ${load.samples.length} requests; last 10 s: ${(recent.length / 10).toFixed(0)}/s, ${recent.filter((s) => s.status === 0 || s.status >= 500).length} 5xx or unanswered`,
      );
    }, 30_000);
    await Bun.sleep(o.seconds * 1000);
    await faults;
    await load.stop();
    const loadAfter = loadavg()[0]!.toFixed(1);
    clearInterval(progress);
    log(`load over: ${load.samples.length} requests; draining the outbox (at most ${o.drainSeconds} s)`);

    const sampler = postgres(pg.url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    cleanup.push(() => sampler.end({ timeout: 1 }));
    const drainUntil = performance.now() + o.drainSeconds * 1000;
    let left = -1;
    while (performance.now() < drainUntil) {
      left = await pendingWork(sampler, org.orgId).catch(() => -1);
      if (left === 0) break;
      await Bun.sleep(2000);
    }
    const drainedAfter = (performance.now() - loadStart) / 1000 - o.seconds;
    log(left === 0 ? `drained ${drainedAfter.toFixed(0)} s after the load` : `not drained after ${o.drainSeconds} s (${left} left)`);
    await Bun.sleep(5000);
    sampling = false;
    await sampleLoop;
    const final = new Map<string, { rss: number; fds: number }>();
    for (const i of instances) {
      const u = i.usage();
      if (u) final.set(i.name, u);
    }
    const crashes = instances.flatMap((i) => i.crashes.map((c) => ({ name: i.name, ...c })));
    const exits = [...windows, ...crashes.map((c) => ({ name: `crash of ${c.name}`, start: c.at - startEpoch, end: c.at - startEpoch }))];
    const dataChecks = await checkInvariants(pg.url, org, load.acks, smtp, hooks, exits, startEpoch);
    const crashCheck: Check = {
      name: "no instance exited on its own",
      held: crashes.length === 0,
      detail:
        crashes.length === 0
          ? "none"
          : crashes
              .map(
                (c) =>
                  `${c.name} at t=${((c.at - startEpoch) / 1000).toFixed(0)}s (status ${c.code}): ${(/^\w*Error: .*$/m.exec(c.stderr)?.[0] ?? /"msg":"([^"]{0,160})/.exec(c.stderr)?.[1] ?? "no log line").slice(0, 200)}`,
              )
              .join("; "),
    };
    const checks = [...dataChecks, crashCheck, ...requestChecks(load.samples, o.boundSeconds), ...usageChecks(usage, starts, final)];
    const logged = new Map<string, number>();
    for (const i of instances) for (const [key, n] of i.errors) logged.set(key, (logged.get(key) ?? 0) + n);
    const notes = [
      `Error lines the instances logged (message · class · SQLSTATE or driver code: count): ${
        logged.size === 0
          ? "none"
          : [...logged]
              .sort((a, b) => b[1] - a[1])
              .map(([key, n]) => `${key}: ${n}`)
              .join("; ")
      }.`,
      `Machine load average (1 min) when the load began: ${loadBefore}; when it ended: ${loadAfter}${Number(loadBefore) > cpus().length ? " — the machine's cores were shared with other work when the run began, so latencies are those of a busy machine" : " (the soak's own servers, PostgreSQL and load generator share the machine's cores)"}.`,
      `Drain: ${left === 0 ? `the outbox was empty ${drainedAfter.toFixed(0)} s after the load ended` : `the outbox still held ${left} rows ${o.drainSeconds} s after the load ended`}.`,
      `The instances ran with \`WEBHOOK_RETRY_SCHEDULE=${RETRY_SCHEDULE}\` so that deliveries refused during the receiver's 503 window are retried within the drain, and \`NODE_ENV=development\` so that the outbound guard lets webhooks reach the loopback receivers (README "Configuration"); rate limits were raised out of the way.`,
    ];
    return { samples: load.samples, depth, windows, checks, dataChecks, notes };
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    for (const f of cleanup.reverse()) await Promise.resolve(f()).catch(() => {});
  }
}
