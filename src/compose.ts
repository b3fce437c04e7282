// The composition root: the one module that knows every feature. It builds `Deps` (every cache,
// limiter and runtime, once per process or per test app) and lists the sources of tools. Nothing
// below imports it; src/server.ts and the test support build through it.
import { connectorTools } from "./connectors/tools.ts";
import { campaignMailHandler } from "./campaigns/mail.ts";
import { OPT_IN_MAIL_KIND, purgeExpiredOptIns } from "./campaigns/opt-in.ts";
import { optInMailHandler } from "./campaigns/opt-in-mail.ts";
import { sweepDueAudiences } from "./campaigns/audience.ts";
import { CAMPAIGN_MAIL_KIND, queueDueSteps } from "./campaigns/progress.ts";
import { automationTools } from "./campaigns/tools.ts";
import type { ChatState } from "./ports/caches.ts";
import { createChatState } from "./conversations/state.ts";
import { dataTools } from "./customers/tools.ts";
import type { Database } from "./db/client.ts";
import { createStatements } from "./db/prepared.ts";
import type { Deps } from "./deps.ts";
import { createLiveEvents, type RunningLiveEvents } from "./inbox/live-events.ts";
import { inboxTools } from "./inbox/tools.ts";
import { REPLY_MAIL_KIND, replyMailHandler } from "./inbox/reply-mail.ts";
import { MEMBER_NOTICE_KIND, memberNoticeHandler } from "./inbox/member-notices.ts";
import { customActionTools } from "./integrations/custom-actions.ts";
import { createInvalidation } from "./invalidation.ts";
import { createPasswordHasher, type PasswordHasher } from "./kit/passwords.ts";
import { createSingleFlight } from "./kit/single-flight.ts";
import { createPassageCache } from "./knowledge/passages.ts";
import { type MailTransport, smtpTransport } from "./mail/smtp.ts";
import { createMetrics } from "./metrics/registry.ts";
import { createOutboxLoop, type LoopTimers, type Sender } from "./outbox/loop.ts";
import { outboxDepth } from "./outbox/stats.ts";
import type { ClaimCaps } from "./outbox/claim.ts";
import type { OutboxHandlers } from "./outbox/outbox.ts";
import { docsTools } from "./knowledge/tools.ts";
import { createAccessVerifier } from "./oauth/token-cache.ts";
import { createLeasedLimiter } from "./ratelimit/leased.ts";
import { createWidgetKeyCache } from "./sdk/auth.ts";
import { setupTools } from "./setup/tools.ts";
import { createToolRuntime } from "./tools/runtime.ts";
import type { ToolDefinition, ToolProvider } from "./tools/types.ts";
import { webhookHandler } from "./webhooks/delivery.ts";
import { WEBHOOK_KIND } from "./webhooks/events.ts";

/** Built-in families: the same tools for every org (feature flags and toggles still apply). Adding one is one line. */
export const families: readonly (readonly ToolDefinition[])[] = [docsTools, dataTools, inboxTools, automationTools, setupTools];

/** Every source of tools the runtime knows; an org-defined source (custom actions, connectors) is one line. */
export const toolProviders: readonly ToolProvider[] = [async () => families.flat(), customActionTools, connectorTools];

/** What the caller supplies; everything stateful is built here. */
export type DepsInput = Omit<Deps, "connectorRefreshes" | "limiter" | "tools" | "accessTokens" | "invalidation" | "chat" | "passages" | "statements" | "widgetKeys" | "passwords" | "metrics" | "live" | "clientDocuments"> & {
  /** Bun's argon2id defaults unless given. */
  passwords?: PasswordHasher;
  /** LISTEN of the database (src/db/client.ts), so other instances' changes reach this one. */
  listen?: Database["listen"];
  /** Adds the process's own series (CPU, memory, event loop) to GET /metrics: the server does; test apps need not. */
  processMetrics?: boolean;
};

/** Closes every open event stream and stops listening (src/server.ts, before the server stops). */
export async function stopLive(deps: Deps): Promise<void> {
  await (deps.live as RunningLiveEvents).stop();
}

export async function buildDeps(input: DepsInput): Promise<Deps> {
  const { listen, passwords, processMetrics, ...base } = input;
  const invalidation = createInvalidation({ db: base.db, log: base.log, listen });
  const limiter = createLeasedLimiter(base.db);
  const chat: ChatState = createChatState();
  // The runtime and the verifier read `deps` when called, never while being built: complete it below.
  const deps = { ...base, passwords: passwords ?? createPasswordHasher(), connectorRefreshes: createSingleFlight<Record<string, string>>(), limiter, invalidation, chat, passages: createPassageCache(), statements: createStatements(), clientDocuments: new Map() } as unknown as Deps;
  deps.metrics = createMetrics({ processMetrics, outboxDepth: () => outboxDepth(deps) });
  deps.tools = createToolRuntime(deps, { providers: toolProviders, limiter, invalidation, builtins: families.flat() });
  deps.accessTokens = createAccessVerifier(deps, invalidation);
  deps.widgetKeys = createWidgetKeyCache(deps, invalidation);
  const live = createLiveEvents({ log: base.log, listen, now: base.now });
  deps.live = live;
  await invalidation.start();
  await live.start();
  return deps;
}

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

export interface SenderOptions {
  /** Pause between ticks. Default 1 s. */
  intervalMs?: number;
  timers?: LoopTimers;
  /** Default: SMTP_URL's transport, or none (mail is kept, not sent). */
  transport?: MailTransport | null;
  /** Extra outbox kinds, delivered by a pool of their own (the mail pool's size, no caps). */
  handlers?: OutboxHandlers;
  /** Most rows one claim takes (default: the pool's free slots). */
  batch?: number;
}

/**
 * The outbox loop with this service's kinds: campaign mail and opt-in confirmations (after the
 * audiences and due steps are queued and expired opt-ins purged) and webhook deliveries, each in a pool of its own, so neither waits for the other.
 */
export function createSender(deps: Deps, options: SenderOptions = {}): Sender {
  const transport = options.transport === undefined ? smtpTransport(deps.config) : options.transport;
  const known = new Set([CAMPAIGN_MAIL_KIND, OPT_IN_MAIL_KIND, REPLY_MAIL_KIND, MEMBER_NOTICE_KIND, WEBHOOK_KIND]);
  const extra = Object.fromEntries(Object.entries(options.handlers ?? {}).filter(([kind]) => !known.has(kind)));
  return createOutboxLoop(deps, {
    intervalMs: options.intervalMs,
    timers: options.timers,
    batch: options.batch,
    pools: [
      {
        // Series steps, double opt-in confirmations and ticket replies share the mail pool.
        handlers: {
          [CAMPAIGN_MAIL_KIND]: campaignMailHandler(deps, transport),
          [OPT_IN_MAIL_KIND]: optInMailHandler(deps, transport),
          [REPLY_MAIL_KIND]: replyMailHandler(deps, transport),
          [MEMBER_NOTICE_KIND]: memberNoticeHandler(deps, transport),
        },
        ...OUTBOX_POOLS.mail,
        before: async () => {
          await sweepDueAudiences(deps);
          await queueDueSteps(deps);
          await purgeExpiredOptIns(deps);
        },
        close: () => transport?.close(),
      },
      { handlers: { [WEBHOOK_KIND]: webhookHandler(deps) }, ...OUTBOX_POOLS.webhook },
      ...(Object.keys(extra).length > 0 ? [{ handlers: extra, concurrency: OUTBOX_POOLS.mail.concurrency }] : []),
    ],
  });
}

/** Starts the loop (src/server.ts). */
export function startSender(deps: Deps, options: SenderOptions = {}): Sender {
  const sender = createSender(deps, options);
  sender.start();
  return sender;
}
