// The sender loop every server process runs (src/server.ts): each tick it
//   1. applies audience rules of active campaigns (at most once a minute per campaign, claimed
//      with SKIP LOCKED so one process does it),
//   2. queues the steps that are due (src/campaigns/service.ts `queueDueSteps`) and deletes the
//      double opt-in requests that expired unconfirmed (src/campaigns/opt-in.ts), and
//   3. tops up the delivery pools (src/mail/outbox.ts): one for campaign mail, one for webhooks,
//      each with its own slots, so a slow receiver of one kind never delays the other; within a
//      pool the claim is fair across orgs and, for webhooks, endpoints.
// A tick does not wait for the deliveries it started: they go on between ticks, refilling their
// pool as they end, and the next tick comes `intervalMs` after this one's claims.
// Several processes on one PostgreSQL share the work without sending anything twice; the clock
// (deps.now) and the loop's own timers are injected so tests drive it.
import { OPT_IN_MAIL_KIND, purgeExpiredOptIns } from "../campaigns/opt-in.ts";
import { CAMPAIGN_MAIL_KIND, queueDueSteps, sweepDueAudiences } from "../campaigns/service.ts";
import type { Deps } from "../deps.ts";
import { messageOf } from "../errors.ts";
import { campaignMailHandler } from "./campaign-mail.ts";
import { optInMailHandler } from "./opt-in-mail.ts";
import { type ClaimCaps, createOutboxPool, type OutboxHandlers, type OutboxPool } from "./outbox.ts";
import { type MailTransport, smtpTransport } from "./smtp.ts";
import { WEBHOOK_KIND } from "../webhooks/events.ts";
import { webhookHandler } from "../webhooks/delivery.ts";

/**
 * Slots per process and caps (in flight across processes, docs/decisions.md "The outbox"). Mail:
 * one SMTP server serves every org, so a message is no slower for one org than another; the
 * ranking alone makes a new org's message the next to start. Webhooks: each endpoint answers at
 * its own pace (up to 15 s), so one holds at most 2 slots and one org at most 4 of the 8.
 */
export const OUTBOX_POOLS = {
  mail: { concurrency: 4, caps: {} as ClaimCaps },
  webhook: { concurrency: 8, caps: { lane: 2, org: 4 } as ClaimCaps },
} as const;

export interface LoopTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realLoopTimers: LoopTimers = {
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface SenderOptions {
  /** Pause between ticks. Default 1 s: delays are expressible in seconds. */
  intervalMs?: number;
  timers?: LoopTimers;
  /** Default: SMTP_URL's transport, or none (mail is kept, not sent). */
  transport?: MailTransport | null;
  /** Extra outbox kinds, delivered by a pool of their own (the mail pool's size, no caps). */
  handlers?: OutboxHandlers;
  /** Most rows one claim takes (default: the pool's free slots). */
  batch?: number;
}

export interface Sender {
  /** One pass (what each timer tick runs), then waits until every delivery it started, and the refills after them, ended; tests call it after moving the clock. */
  tick(): Promise<void>;
  /** Resolves when no delivery is in flight in any pool. */
  idle(): Promise<void>;
  /** Runs a pass every `intervalMs` (after the previous pass's claims) until `stop`; deliveries run on between passes. */
  start(): void;
  /** Lets a pass in progress and the deliveries in flight finish, then closes the SMTP connections. */
  stop(): Promise<void>;
}

export function createSender(deps: Deps, options: SenderOptions = {}): Sender {
  const transport = options.transport === undefined ? smtpTransport(deps.config) : options.transport;
  const batch = options.batch;
  const pools: OutboxPool[] = [
    // Series steps and double opt-in confirmations (src/campaigns/opt-in.ts) share the mail pool.
    createOutboxPool(deps, { [CAMPAIGN_MAIL_KIND]: campaignMailHandler(deps, transport), [OPT_IN_MAIL_KIND]: optInMailHandler(deps, transport) }, { ...OUTBOX_POOLS.mail, batch }),
    // Webhook deliveries (issue #15) ride the same outbox, in a pool of their own.
    createOutboxPool(deps, { [WEBHOOK_KIND]: webhookHandler(deps) }, { ...OUTBOX_POOLS.webhook, batch }),
  ];
  const extra = Object.fromEntries(Object.entries(options.handlers ?? {}).filter(([kind]) => kind !== CAMPAIGN_MAIL_KIND && kind !== OPT_IN_MAIL_KIND && kind !== WEBHOOK_KIND));
  if (Object.keys(extra).length > 0) pools.push(createOutboxPool(deps, extra, { concurrency: OUTBOX_POOLS.mail.concurrency, batch }));
  const [mailPool, ...otherPools] = pools;

  /** Claims for every pool; the mail pool after the campaign work that queues its rows. Every part runs even when another fails. */
  const pass = async () => {
    const results = await Promise.allSettled([
      (async () => {
        await sweepDueAudiences(deps);
        await queueDueSteps(deps);
        await purgeExpiredOptIns(deps);
      })().finally(() => mailPool!.pump()),
      ...otherPools.map((pool) => pool.pump()),
    ]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  };
  const idle = async () => {
    await Promise.all(pools.map((pool) => pool.idle()));
  };
  const timers = options.timers ?? realLoopTimers;
  const interval = options.intervalMs ?? 1000;
  let stopped = false;
  let running: Promise<void> | undefined;
  let handle: unknown;
  const schedule = () => {
    if (stopped) return;
    handle = timers.setTimeout(() => {
      if (stopped) return;
      running = pass()
        .catch((error) => deps.log.warn("sender tick failed", { error: messageOf(error) }))
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, interval);
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
      await Promise.all(pools.map((pool) => pool.stop()));
      transport?.close();
    },
  };
}

/** Starts the loop (src/server.ts). */
export function startSender(deps: Deps, options: SenderOptions = {}): Sender {
  const sender = createSender(deps, options);
  sender.start();
  return sender;
}
