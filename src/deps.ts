// What every feature function may use, built once at boot (src/server.ts) or per test file
// (test/support/app.ts) by the composition root (src/compose.ts `buildDeps`), and passed down
// explicitly. Nothing reaches for globals instead: every cache, limiter and in-flight map lives in
// an object built there. Every member is a narrow port declared on this floor or below
// (src/ports/, src/kit/, src/db/, …): a feature depends on what it uses, never on another
// feature's module just to name a type.
import type { Config } from "./config.ts";
import type { FieldCipher } from "./crypto/fields.ts";
import type { Db } from "./db/client.ts";
import type { Statements } from "./db/prepared.ts";
import type { Invalidation } from "./invalidation.ts";
import type { Logger } from "./log.ts";
import type { PasswordHasher } from "./kit/passwords.ts";
import type { SingleFlight } from "./kit/single-flight.ts";
import type { KeyedSlots, Slots } from "./kit/slots.ts";
import type { Timers } from "./kit/timers.ts";
import type { GuardOptions } from "./net/guard.ts";
import type { AccessVerifier, ChatState, KnowledgeIndexes, MetadataClient, OrgTextsCache, PassageCache, WidgetKeyCache } from "./ports/caches.ts";
import type { Metrics } from "./ports/metrics.ts";
import type { LiveEvents } from "./ports/live.ts";
import type { ToolRuntime } from "./ports/tools.ts";
import type { Limiter } from "./ratelimit/leased.ts";

export interface Deps {
  config: Readonly<Config>;
  db: Db;
  cipher: FieldCipher;
  log: Logger;
  /** The clock; tests move it instead of sleeping. */
  now: () => Date;
  /** How outbound requests to tenant-supplied URLs are checked (src/net/guard.ts); tests inject a resolver. */
  guard: GuardOptions;
  /** argon2id for member passwords (src/kit/passwords.ts); tests inject cheap parameters. */
  passwords: PasswordHasher;
  /** Deadlines of outbound work (connector discovery and calls); tests fire them by moving the clock. */
  timers: Timers;
  /** Connector OAuth refreshes in flight, so parallel calls that met a 401 share one refresh (src/connectors/credentials.ts). */
  connectorRefreshes: SingleFlight<Record<string, string>>;
  /** The one rate limiter (leased counters in the database: exact across instances). */
  limiter: Limiter;
  /** Runs every tool call, whoever asks (src/tools/runtime.ts). `deps.tools.invalidate(orgId)` after a change. */
  tools: ToolRuntime;
  /** Verified access tokens, cached briefly; `invalidate()` after any revocation (src/oauth/token-cache.ts). */
  accessTokens: AccessVerifier;
  /** Drops cached state here and in every other instance (src/invalidation.ts). */
  invalidation: Invalidation;
  /** Reply writes pending after a chat stream (src/conversations/transcript.ts). */
  chat: ChatState;
  /** Documents cut into passages per version, for chat knowledge and search snippets (src/knowledge/passages.ts). */
  passages: PassageCache;
  /** The orgs' in-memory search indexes, checked against the database on every question (src/knowledge/org-index.ts). */
  knowledge: KnowledgeIndexes;
  /** Hot queries built once (src/db/prepared.ts). */
  statements: Statements;
  /** Live widget keys and their org's allowed origins, cached; `deps.invalidation.publish("widget_keys", orgId)` after a change (src/sdk/auth.ts). */
  widgetKeys: WidgetKeyCache;
  /** Each org's overrides of the catalogue's sentences, cached; `deps.invalidation.publish("texts", orgId)` after a change (src/texts/store.ts). */
  texts: OrgTextsCache;
  /** Counters and histograms for GET /metrics (src/metrics/registry.ts); labels never carry ids or customer data. */
  metrics: Metrics;
  /** Wakes the readers of live conversation events and bounds their streams (src/live/live-events.ts). */
  live: LiveEvents;
  /** Inbound email's reply extraction, on a worker thread with a time limit (src/mail-in/reply-thread.ts). */
  replies: { visible(text: string, timeLimitMs?: number): Promise<string> };
  /** DNS for checking inbound mail's SPF, DKIM and DMARC (src/mail-in/authenticate.ts); the system's when absent; tests answer from their own records. */
  mailDns?: (name: string, type: string) => Promise<string[][] | string[]>;
  /** "Test your agent" runs answering and waiting: per process, per org, per member (src/agents/eval-queue.ts). */
  evalRuns: { all: Slots; orgs: KeyedSlots; members: KeyedSlots };
  /** Threads reading uploaded files at once, and uploads waiting for one (src/sources/files.ts). */
  fileReaders: Slots;
  /** Client metadata documents by URL, until their cache time (src/oauth/client-metadata.ts). */
  clientDocuments: Map<string, { value: MetadataClient; until: number }>;
  /** Client metadata document fetches in flight, so concurrent requests for one URL share one fetch. */
  clientDocumentFetches: SingleFlight<MetadataClient>;
}
