// The sender loop every server process runs (src/server.ts): each tick it
//   1. applies audience rules of active campaigns (at most once a minute per campaign, claimed
//      with SKIP LOCKED so one process does it),
//   2. queues the steps that are due (src/campaigns/service.ts `queueDueSteps`), and
//   3. delivers due outbox rows (src/mail/outbox.ts) until none is left.
// Several processes on one PostgreSQL share the work without sending anything twice; the clock
// (deps.now) and the loop's own timers are injected so tests drive it.
import { CAMPAIGN_MAIL_KIND, queueDueSteps, sweepDueAudiences } from "../campaigns/service.ts";
import type { Deps } from "../deps.ts";
import { messageOf } from "../errors.ts";
import { campaignMailHandler } from "./campaign-mail.ts";
import { deliverDue, type OutboxHandlers } from "./outbox.ts";
import { type MailTransport, smtpTransport } from "./smtp.ts";
import { WEBHOOK_KIND } from "../webhooks/events.ts";
import { webhookHandler } from "../webhooks/delivery.ts";

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
  /** Extra outbox kinds (webhooks, later) next to campaign email. */
  handlers?: OutboxHandlers;
  batch?: number;
}

export interface Sender {
  /** One full pass (what each timer tick runs); tests call it after moving the clock. */
  tick(): Promise<void>;
  /** Runs `tick` every `intervalMs` (after the previous tick ends) until `stop`. */
  start(): void;
  /** Lets a tick in progress finish, then closes the SMTP connections. */
  stop(): Promise<void>;
}

export function createSender(deps: Deps, options: SenderOptions = {}): Sender {
  const transport = options.transport === undefined ? smtpTransport(deps.config) : options.transport;
  // Webhook deliveries (issue #15) ride the same loop: one delivery mechanism for mail and webhooks.
  const handlers: OutboxHandlers = { [WEBHOOK_KIND]: webhookHandler(deps), ...options.handlers, [CAMPAIGN_MAIL_KIND]: campaignMailHandler(deps, transport) };
  const batch = options.batch ?? 20;
  const tick = async () => {
    await sweepDueAudiences(deps);
    await queueDueSteps(deps);
    while ((await deliverDue(deps, handlers, { batch })) === batch);
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
      running = tick()
        .catch((error) => deps.log.warn("sender tick failed", { error: messageOf(error) }))
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, interval);
  };
  return {
    tick,
    start() {
      schedule();
    },
    async stop() {
      stopped = true;
      timers.clearTimeout(handle);
      await running;
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
