// The background loop every server process runs over the durable outbox (src/outbox/outbox.ts;
// its pools: src/outbox/pool.ts).
// It knows no kind of row: the composition root (src/compose.ts `createSender`) hands it pools,
// each with the handlers of its kinds, its slots and caps, and optional work to do before the
// pool claims (e.g. queueing the campaign steps that are due). Each tick it runs every pool's
// `before`, then tops up that pool: one pool per family of kinds, each with its own slots, so a
// slow receiver of one kind never delays another; within a pool the claim is fair across orgs
// and lanes.
// A tick does not wait for the deliveries it started: they go on between ticks, refilling their
// pool as they end, and the next tick comes `intervalMs` after this one's claims.
// Several processes on one PostgreSQL share the work without sending anything twice; the clock
// (deps.now) and the loop's own timers are injected so tests drive it.
import type { Deps } from "../deps.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import { messageOf } from "../errors.ts";
import type { ClaimCaps } from "./claim.ts";
import type { OutboxHandlers } from "./outbox.ts";
import { createOutboxPool, type OutboxPool } from "./pool.ts";

/** The longest pause between passes while they keep failing. */
export const MAX_BACKOFF_MS = 8000;

export interface LoopTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realLoopTimers: LoopTimers = {
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** One delivery pool of the loop. */
export interface PoolSpec {
  handlers: OutboxHandlers;
  /** Deliveries in flight in this process. */
  concurrency: number;
  /** In flight across processes, per lane and per org. */
  caps?: ClaimCaps;
  /** Work that queues this pool's rows, run before each of its claims; the claim runs even when it fails. */
  before?: () => Promise<void>;
  /** Releases what the handlers hold (e.g. SMTP connections), after the last delivery. */
  close?: () => void;
}

export interface LoopOptions {
  pools: PoolSpec[];
  /** Pause between ticks. Default 1 s: delays are expressible in seconds. */
  intervalMs?: number;
  timers?: LoopTimers;
  /** Most rows one claim takes (default: the pool's free slots). */
  batch?: number;
}

export interface Sender {
  /**
   * One pass (what each timer tick runs), then waits until every delivery it started, and the refills after them, ended; tests call it after moving the clock.
   */
  tick(): Promise<void>;
  /** Resolves when no delivery is in flight in any pool. */
  idle(): Promise<void>;
  /** Runs a pass every `intervalMs` (after the previous pass's claims) until `stop`; deliveries run on between passes. */
  start(): void;
  /** Lets a pass in progress and the deliveries in flight finish, then releases what the pools hold. */
  stop(): Promise<void>;
}

export function createOutboxLoop(deps: Pick<Deps, "db" | "now" | "log" | "metrics" | "timers">, options: LoopOptions): Sender {
  const pools: { spec: PoolSpec; pool: OutboxPool }[] = options.pools.map((spec) => ({
    spec,
    pool: createOutboxPool(deps, spec.handlers, { concurrency: spec.concurrency, caps: spec.caps ?? {}, batch: options.batch }),
  }));

  /** Claims for every pool, each after its own `before`. Every part runs even when another fails. */
  const pass = async () => {
    const results = await Promise.allSettled(pools.map(({ spec, pool }) => (spec.before ? spec.before().finally(() => pool.pump()) : pool.pump())));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  };
  const idle = async () => {
    await Promise.all(pools.map(({ pool }) => pool.idle()));
  };
  const timers = options.timers ?? realLoopTimers;
  const interval = options.intervalMs ?? 1000;
  let stopped = false;
  let running: Promise<void> | undefined;
  let handle: unknown;
  // A failed pass (the database unreachable, most often) doubles the pause, up to MAX_BACKOFF_MS,
  // and the first pass that succeeds brings it back: the loop rides out an outage without a
  // restart and without a warning every second (README "Faults and shutdown").
  let failures = 0;
  const schedule = () => {
    if (stopped) return;
    const pause = failures === 0 ? interval : Math.max(interval, Math.min(interval * 2 ** failures, MAX_BACKOFF_MS));
    handle = timers.setTimeout(() => {
      if (stopped) return;
      running = pass()
        .then(() => {
          if (failures > 0) deps.log.info("sender resumed", { failed_passes: failures });
          failures = 0;
        })
        .catch((error) => {
          failures++;
          deps.log.warn("sender tick failed", { error: messageOf(error), database_unavailable: isDatabaseUnavailable(error), failed_passes: failures });
        })
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, pause);
  };
  return {
    async tick() {
      await pass();
      await idle();
    },
    idle,
    start() {
      schedule();
    },
    async stop() {
      stopped = true;
      timers.clearTimeout(handle);
      await running;
      await Promise.all(pools.map(({ pool }) => pool.stop()));
      for (const { spec } of pools) spec.close?.();
    },
  };
}
