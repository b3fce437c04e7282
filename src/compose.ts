// The composition root: the one module that knows every feature. It builds `Deps` (every cache,
// limiter and runtime, once per process or per test app) and lists the sources of tools. Nothing
// below imports it; src/server.ts and the test support build through it.
import { deleteExpiredActivity } from "./activity/log.ts";
import { deleteExpiredSessions } from "./auth/sessions.ts";
import { discoverDueConnectors, discoveryTickMs } from "./connectors/scheduler.ts";
import { sourceSyncTickMs, syncDueSources } from "./sources/scheduler.ts";
import { connectorTools } from "./connectors/tools.ts";
import { campaignMailHandler } from "./campaigns/mail.ts";
import { OPT_IN_MAIL_KIND, purgeExpiredOptIns } from "./campaigns/opt-in.ts";
import { optInMailHandler } from "./campaigns/opt-in-mail.ts";
import { sweepDueAudiences } from "./campaigns/audience.ts";
import { CAMPAIGN_MAIL_KIND, queueDueSteps } from "./campaigns/progress.ts";
import { automationTools } from "./campaigns/tools.ts";
import type { ChatState, MetadataClient } from "./ports/caches.ts";
import { createChatState } from "./agents/turn.ts";
import { createEvalQueue } from "./agents/eval-queue.ts";
import { createFileReaders } from "./sources/files.ts";
import { dataTools } from "./customers/tools.ts";
import type { Database } from "./db/client.ts";
import { createStatements } from "./db/prepared.ts";
import { type Job, runJobs } from "./jobs.ts";
import { TABLE_MAINTENANCE, tableMaintenance } from "./db/maintenance.ts";
import type { Deps } from "./deps.ts";
import { sql } from "drizzle-orm";
import { createLiveEvents, type RunningLiveEvents } from "./live/live-events.ts";
import { inboxTools } from "./inbox/tools.ts";
import { withTranslatedReply } from "./translation/tools.ts";
import { REPLY_MAIL_KIND, replyMailHandler } from "./inbox/reply-mail.ts";
import { MEMBER_NOTICE_KIND, memberNoticeHandler } from "./inbox/member-notices.ts";
import { RESOLUTION_MAIL_KIND, resolutionMailHandler } from "./inbox/csat-mail.ts";
import { passwordResetHandler, RESET_MAIL_KIND } from "./orgs/password-reset.ts";
import { INVITATION_MAIL_KIND, invitationMailHandler } from "./orgs/invitation-mail.ts";
import { customActionTools } from "./integrations/custom-action-calls.ts";
import { createInvalidation } from "./invalidation.ts";
import { createKnowledgeStates } from "./knowledge/state-cache.ts";
import { createTextsCache } from "./texts/store.ts";
import { systemActor } from "./kit/actor.ts";
import { createPasswordHasher, type PasswordHasher } from "./kit/passwords.ts";
import { createOrgCaches } from "./kit/org-cache.ts";
import { createSingleFlight } from "./kit/single-flight.ts";
import { createPassageCache } from "./knowledge/passages.ts";
import { EMBED_JOB, embedPendingDocs } from "./knowledge/embed-job.ts";
import { type MailTransport, smtpTransport } from "./mail/smtp.ts";
import { createMetrics } from "./metrics/registry.ts";
import { createOutboxLoop, type LoopTimers, type Sender } from "./outbox/loop.ts";
import { outboxDepth } from "./outbox/stats.ts";
import type { ClaimCaps } from "./outbox/claim.ts";
import type { OutboxHandlers } from "./outbox/outbox.ts";
import { docsTools } from "./knowledge/tools.ts";
import { deleteUnusedClients } from "./oauth/clients.ts";
import { createAccessVerifier } from "./oauth/token-cache.ts";
import { deleteExpiredOAuthState } from "./oauth/tokens.ts";
import { createLeasedLimiter, deleteExpiredCounters } from "./ratelimit/leased.ts";
import { createWidgetKeyCache } from "./sdk/auth.ts";
import { setupTools } from "./setup/tools.ts";
import { createToolRuntime } from "./tools/runtime.ts";
import type { ToolDirectory } from "./ports/tools.ts";
import { orgAgents } from "./agents/lookups.ts";
import { orgMemberRoles } from "./tenancy/memberships.ts";
import type { ToolDefinition, ToolProvider } from "./tools/types.ts";
import { webhookHandler } from "./webhooks/delivery.ts";
import { createReplyThread } from "./mail-in/reply-thread.ts";
import { inboundMessageIds } from "./mail-in/originals.ts";
import { csatSettings } from "./sdk/csat-settings.ts";
import { WEBHOOK_KIND } from "./webhooks/events.ts";

/** Built-in families: the same tools for every org (feature flags and toggles still apply). Adding one is one line. */
export const families: readonly (readonly ToolDefinition[])[] = [docsTools, dataTools, withTranslatedReply(inboxTools), automationTools, setupTools];
/** Every source of tools the runtime knows; an org-defined source (custom actions, connectors) is one line. */
export const toolProviders: readonly ToolProvider[] = [async () => families.flat(), customActionTools, connectorTools];

/** What the caller supplies; everything stateful is built here. */
export type DepsInput = Omit<
  Deps,
  | "connectorRefreshes"
  | "limiter"
  | "tools"
  | "accessTokens"
  | "invalidation"
  | "chat"
  | "passages"
  | "knowledge"
  | "statements"
  | "widgetKeys"
  | "texts"
  | "passwords"
  | "metrics"
  | "live"
  | "replies"
  | "clientDocuments"
  | "clientDocumentFetches"
  | "evalRuns"
  | "fileReaders"
> & {
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

/** What the tool runtime reads of agents/ and orgs/, which stand above it. */
export function toolDirectory(deps: Deps): ToolDirectory {
  return { agents: (orgId) => orgAgents(deps, orgId), memberRoles: (orgId) => orgMemberRoles(deps.db, orgId) };
}

export async function buildDeps(input: DepsInput): Promise<Deps> {
  const { listen, passwords, processMetrics, ...base } = input;
  const invalidation = createInvalidation({ db: base.db, log: base.log, listen });
  const limiter = createLeasedLimiter(base.db);
  const chat: ChatState = createChatState();
  // The runtime and the verifier read `deps` when called, never while being built: complete it below.
  const deps = {
    ...base,
    passwords: passwords ?? createPasswordHasher(),
    connectorRefreshes: createSingleFlight<Record<string, string>>(),
    limiter,
    invalidation,
    chat,
    passages: createPassageCache(),
    knowledge: { states: createKnowledgeStates(() => deps.now().getTime()), orgs: createOrgCaches(), vectors: { pausedUntil: 0 } },
    statements: createStatements(),
    replies: createReplyThread(),
    clientDocuments: new Map(),
    clientDocumentFetches: createSingleFlight<MetadataClient>(),
    evalRuns: createEvalQueue(),
    fileReaders: createFileReaders(),
  } as unknown as Deps;
  deps.metrics = createMetrics({ processMetrics, outboxDepth: () => outboxDepth(deps) });
  deps.tools = createToolRuntime(deps, { providers: toolProviders, limiter, invalidation, directory: toolDirectory(deps), builtins: families.flat() });
  deps.accessTokens = createAccessVerifier(deps, invalidation);
  deps.widgetKeys = createWidgetKeyCache(deps, invalidation);
  // Sent in the changing transaction (src/knowledge/state-cache.ts), so delivered to every instance, this one too, at its commit.
  invalidation.subscribe("knowledge", (orgId) => deps.knowledge.states.changing(orgId));
  deps.texts = createTextsCache(deps);
  // Typing and presence travel to the other instances as a NOTIFY, never as a row (src/live/signals.ts).
  const notify = async (channel: string, payload: string) => void (await base.db.execute(sql`select pg_notify(${channel}, ${payload})`));
  const live = createLiveEvents({ log: base.log, listen, notify, now: base.now });
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
 * outbox-pass jobs queued what is due: `jobs` below) and webhook deliveries, each in a pool of its own, so neither waits for the other.
 */
export function createSender(deps: Deps, options: SenderOptions = {}): Sender {
  const transport = options.transport === undefined ? smtpTransport(deps.config) : options.transport;
  // Series steps, opt-in confirmations, ticket replies, notices, rating, reset and invitation emails share the mail pool.
  const mail: OutboxHandlers = {
    [CAMPAIGN_MAIL_KIND]: campaignMailHandler(deps, transport),
    [OPT_IN_MAIL_KIND]: optInMailHandler(deps, transport),
    [REPLY_MAIL_KIND]: replyMailHandler(deps, transport, (orgId, ids) => inboundMessageIds(deps.db, orgId, ids)),
    [MEMBER_NOTICE_KIND]: memberNoticeHandler(deps, transport),
    [RESOLUTION_MAIL_KIND]: resolutionMailHandler(deps, transport, (orgId) => csatSettings(deps, orgId)),
    [RESET_MAIL_KIND]: passwordResetHandler(deps, transport),
    [INVITATION_MAIL_KIND]: invitationMailHandler(deps, transport),
  };
  const extra = Object.fromEntries(Object.entries(options.handlers ?? {}).filter(([kind]) => !(kind in mail) && kind !== WEBHOOK_KIND));
  const queueing = jobs(deps).filter((job) => job.outboxPass);
  return createOutboxLoop(deps, {
    intervalMs: options.intervalMs ?? OUTBOX_PASS_MS,
    timers: options.timers,
    batch: options.batch,
    pools: [
      {
        handlers: mail,
        ...OUTBOX_POOLS.mail,
        before: async () => {
          for (const job of queueing) await job.run();
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

/** The outbox loop's pause between passes (src/outbox/loop.ts). */
export const OUTBOX_PASS_MS = 1000;
const HOUSEKEEPING_MS = 10 * 60_000;

/**
 * Every periodic job of a server process besides the outbox deliveries themselves, in one list.
 * `stopping` is aborted at shutdown: a job that can run long (a knowledge source's sync) stops there.
 */
export function jobs(deps: Deps, stopping: AbortSignal = new AbortController().signal): Job[] {
  const housekeeper = systemActor("housekeeping");
  return [
    { name: "audience enrolment", everyMs: OUTBOX_PASS_MS, outboxPass: true, run: () => sweepDueAudiences(deps) },
    { name: "due series steps", everyMs: OUTBOX_PASS_MS, outboxPass: true, run: () => queueDueSteps(deps) },
    { name: "expired opt-ins", everyMs: OUTBOX_PASS_MS, outboxPass: true, run: () => purgeExpiredOptIns(deps) },
    { name: "connector discovery", everyMs: discoveryTickMs(deps.config), run: () => discoverDueConnectors(deps) },
    { name: "knowledge source syncs", everyMs: sourceSyncTickMs(deps.config), run: () => syncDueSources(deps, stopping) },
    { name: "passage embeddings", everyMs: EMBED_JOB.everyMs, run: () => embedPendingDocs(deps, stopping) },
    { name: "expired dashboard sessions", everyMs: HOUSEKEEPING_MS, run: () => deleteExpiredSessions(deps) },
    { name: "expired rate-limit counters", everyMs: HOUSEKEEPING_MS, run: () => deleteExpiredCounters(deps.db, deps.now()) },
    { name: "expired OAuth state", everyMs: HOUSEKEEPING_MS, run: () => deleteExpiredOAuthState(deps) },
    { name: "unused OAuth clients", everyMs: HOUSEKEEPING_MS, run: () => deleteUnusedClients(deps, housekeeper) },
    { name: "activity retention", everyMs: HOUSEKEEPING_MS, run: () => deleteExpiredActivity(deps) },
    {
      name: "table statistics",
      everyMs: TABLE_MAINTENANCE.everyMs,
      run: tableMaintenance({ db: deps.db, embedded: deps.config.databaseUrl === undefined, warn: (message) => deps.log.warn(message) }),
    },
  ];
}

/** Starts every periodic job (src/server.ts): the outbox loop, whose passes run the outbox-pass jobs, and a timer for each other job. */
export function startJobs(deps: Deps): { stop(): Promise<void> } {
  const sender = startSender(deps);
  const stopping = new AbortController();
  const timed = runJobs(
    deps,
    jobs(deps, stopping.signal).filter((job) => !job.outboxPass),
  );
  return {
    async stop() {
      stopping.abort();
      await Promise.all([timed.stop(), sender.stop()]);
    },
  };
}
