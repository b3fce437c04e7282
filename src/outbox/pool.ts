// The outbox's delivery pools. A pool (createOutboxPool) delivers one set of kinds with its own
// concurrency: mail and webhooks have one each (src/compose.ts createSender), so neither waits for
// the other. A pool claims only as many rows as it has free slots (src/outbox/claim.ts) and
// refills as deliveries end, so a row never waits behind a slow one in a batch. The loop that
// pumps the pools on a timer is src/outbox/loop.ts.
import { releaseClaims } from "./release.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import type { Deps } from "../deps.ts";
import { messageOf } from "../errors.ts";
import { type ClaimCaps, claimDue, OUTBOX_LEASE_MS, recordOutcome, renewClaim } from "./claim.ts";
import type { OutboxHandler, OutboxHandlers, OutboxOutcome, OutboxRow } from "./outbox.ts";

type PoolDeps = Pick<Deps, "db" | "now" | "log" | "metrics" | "timers">;

/** The first pause before recording an outcome again, doubled up to RECORD_RETRY_MAX_MS. */
export const RECORD_RETRY_FIRST_MS = 500;
export const RECORD_RETRY_MAX_MS = 8000;

/** Resolves after `ms` on the injected clock (deps.timers: a test's clock moves it). */
function pause(deps: Pick<Deps, "timers">, ms: number): Promise<void> {
  const signal = deps.timers.deadline(ms);
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/**
 * Records an outcome, waiting for the database while it is unreachable — for as long as this
 * sender's lease on the row runs. A receiver that accepted a delivery just as the database went
 * away would otherwise get it again once the lease ends: the outcome is known here and only the
 * write is missing (README "Faults and shutdown", at-least-once delivery). Past the lease, another
 * sender may hold the row, so the outcome is dropped and the compare-and-set write would refuse it
 * anyway. Any other error is the caller's.
 */
async function recordDurably(deps: PoolDeps, row: OutboxRow, handler: OutboxHandler, outcome: OutboxOutcome, leaseEnds: number): Promise<boolean> {
  let wait = RECORD_RETRY_FIRST_MS;
  for (let tries = 1; ; tries++) {
    try {
      const recorded = await recordOutcome(deps, row, handler, outcome);
      if (tries > 1) deps.log.info("outbox outcome recorded after the database returned", { outbox_id: row.id, kind: row.kind, tries });
      return recorded;
    } catch (error) {
      if (!isDatabaseUnavailable(error) || deps.now().getTime() + wait >= leaseEnds) throw error;
      if (tries === 1) deps.log.warn("outbox outcome waits for the database", { outbox_id: row.id, kind: row.kind, outcome: outcome.kind });
    }
    await pause(deps, wait);
    wait = Math.min(wait * 2, RECORD_RETRY_MAX_MS);
  }
}

/** Delivers one claimed row: renews the claim, runs the kind's handler, records the outcome. */
export async function deliverClaimed(deps: PoolDeps, handler: OutboxHandler, row: OutboxRow): Promise<void> {
  const renewedAt = deps.now().getTime();
  if (!(await renewClaim(deps, row))) {
    deps.log.warn("outbox claim lost while waiting in the batch", { outbox_id: row.id, kind: row.kind });
    return;
  }
  let outcome: OutboxOutcome;
  try {
    outcome = await handler.deliver(row);
  } catch (error) {
    // An unexpected error is treated as temporary; the reason is kept for the dashboard, and
    // the log names only the row (reasons can carry addresses).
    outcome = { kind: "retry", reason: `internal error: ${messageOf(error)}` };
    deps.log.warn("outbox delivery failed unexpectedly", { outbox_id: row.id, kind: row.kind });
  }
  deps.metrics.outboxAttempt(row.kind, outcome.kind);
  if (!(await recordDurably(deps, row, handler, outcome, renewedAt + OUTBOX_LEASE_MS)))
    deps.log.warn("outbox claim lost before recording", { outbox_id: row.id, kind: row.kind, outcome: outcome.kind });
}

export interface OutboxPoolOptions {
  /** Rows delivered at once by this pool in this process. */
  concurrency: number;
  /** Rows in flight per (org, lane) and per org, across processes (ClaimCaps). */
  caps?: ClaimCaps;
  /** Most rows one claim takes (default: the free slots). */
  batch?: number;
}

/**
 * Delivers the outbox rows of `handlers`' kinds with `concurrency` slots. `pump` claims rows for
 * the free slots and starts them; each delivery that ends frees its slot and the pool claims
 * again (once half the slots are free, or none is busy), so due rows keep flowing between the
 * loop's ticks and one slow delivery holds only its own slot.
 */
export interface OutboxPool {
  /** Claims rows for the free slots and starts delivering them; resolves once claimed, not delivered. */
  pump(): Promise<void>;
  /** Resolves when nothing is in flight and no claim is running (refills included). */
  idle(): Promise<void>;
  /** Stops refilling and waits for the deliveries in flight. */
  stop(): Promise<void>;
  readonly inFlight: number;
}

export function createOutboxPool(deps: PoolDeps, handlers: OutboxHandlers, options: OutboxPoolOptions): OutboxPool {
  const kinds = Object.keys(handlers);
  const ordered = kinds.filter((kind) => handlers[kind]!.ordered);
  const concurrency = Math.max(1, options.concurrency);
  const refillAt = Math.max(1, Math.ceil(concurrency / 2));
  let inFlight = 0;
  let claiming: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const waiters: (() => void)[] = [];
  const settle = () => {
    if (inFlight === 0 && !claiming) for (const resolve of waiters.splice(0)) resolve();
  };
  const refill = () => {
    if (!stopped) pump().catch((error) => deps.log.warn("outbox claim failed", { kinds, error: messageOf(error) }));
  };
  const start = (row: OutboxRow) => {
    inFlight++;
    deliverClaimed(deps, handlers[row.kind]!, row)
      .catch((error) => deps.log.warn("outbox delivery could not be recorded", { outbox_id: row.id, kind: row.kind, error: messageOf(error) }))
      .finally(() => {
        inFlight--;
        if (inFlight === 0 || concurrency - inFlight >= refillAt) refill();
        settle();
      });
  };
  const pump = (): Promise<void> => {
    if (claiming) {
      // A claim is running: run another right after it, for the slots freed meanwhile.
      again = true;
      return claiming;
    }
    claiming = (async () => {
      await null; // `claiming` is assigned before this body can end
      try {
        do {
          again = false;
          const free = concurrency - inFlight;
          if (free <= 0) break;
          const rows = await claimDue(deps, kinds, Math.min(free, options.batch ?? free), options.caps, ordered);
          // Stopped while claiming: the rows go back at once for another instance (src/outbox/release.ts).
          if (stopped) await releaseClaims(deps, rows);
          else for (const row of rows) start(row);
        } while (again && !stopped);
      } finally {
        claiming = undefined;
        settle();
      }
    })();
    return claiming;
  };
  return {
    pump,
    idle: () => {
      const done = new Promise<void>((resolve) => waiters.push(resolve));
      settle();
      return done;
    },
    async stop() {
      stopped = true;
      const done = new Promise<void>((resolve) => waiters.push(resolve));
      settle();
      await done;
    },
    get inFlight() {
      return inFlight;
    },
  };
}
