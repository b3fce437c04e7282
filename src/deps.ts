// What every feature function may use, built once at boot (src/server.ts) or per test file
// (test/support/app.ts) by `buildDeps`, and passed down explicitly. Nothing reaches for globals
// instead: every cache, limiter and in-flight map lives in an object built here.
import type { Config } from "./config.ts";
import type { FieldCipher } from "./crypto/fields.ts";
import type { Database, Db } from "./db/client.ts";
import { createStatements, type Statements } from "./db/prepared.ts";
import { createInvalidation, type Invalidation } from "./invalidation.ts";
import type { Logger } from "./log.ts";
import { createPasswordHasher, type PasswordHasher } from "./kit/passwords.ts";
import { createSingleFlight, type SingleFlight } from "./kit/single-flight.ts";
import type { Timers } from "./kit/timers.ts";
import type { GuardOptions } from "./net/guard.ts";
import { type AccessVerifier, createAccessVerifier } from "./oauth/token-cache.ts";
import { createLeasedLimiter, type Limiter } from "./ratelimit/leased.ts";
import { toolProviders } from "./tools/providers.ts";
import { createToolRuntime, type ToolRuntime } from "./tools/runtime.ts";
import { type ChatState, createChatState } from "./conversations/state.ts";
import { createPassageCache, type PassageCache } from "./knowledge/passages.ts";
import { createWidgetKeyCache, type WidgetKeyCache } from "./sdk/auth.ts";

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
  /** Verified access tokens, cached briefly; `invalidate()` after any revocation. */
  accessTokens: AccessVerifier;
  /** Drops cached state here and in every other instance (src/invalidation.ts). */
  invalidation: Invalidation;
  /** Reply writes pending after a chat stream (src/conversations/state.ts). */
  chat: ChatState;
  /** Documents cut into passages per version, for chat knowledge and search snippets (src/knowledge/passages.ts). */
  passages: PassageCache;
  /** Hot queries built once (src/db/prepared.ts). */
  statements: Statements;
  /** Live widget keys and their org's allowed origins, cached; `deps.invalidation.publish("widget_keys", orgId)` after a change (src/sdk/auth.ts). */
  widgetKeys: WidgetKeyCache;
}

/** What the caller supplies; everything stateful is built here. */
export type DepsInput = Omit<Deps, "connectorRefreshes" | "limiter" | "tools" | "accessTokens" | "invalidation" | "chat" | "passages" | "statements" | "widgetKeys" | "passwords"> & {
  /** Bun's argon2id defaults unless given. */
  passwords?: PasswordHasher;
  /** LISTEN of the database (src/db/client.ts), so other instances' changes reach this one. */
  listen?: Database["listen"];
};

export async function buildDeps(input: DepsInput): Promise<Deps> {
  const { listen, passwords, ...base } = input;
  const invalidation = createInvalidation({ db: base.db, log: base.log, listen });
  const limiter = createLeasedLimiter(base.db);
  // The runtime and the verifier read `deps` when called, never while being built: complete it below.
  const deps = { ...base, passwords: passwords ?? createPasswordHasher(), connectorRefreshes: createSingleFlight<Record<string, string>>(), limiter, invalidation, chat: createChatState(), passages: createPassageCache(), statements: createStatements() } as unknown as Deps;
  deps.tools = createToolRuntime(deps, { providers: toolProviders, limiter, invalidation });
  deps.accessTokens = createAccessVerifier(deps, invalidation);
  deps.widgetKeys = createWidgetKeyCache(deps, invalidation);
  await invalidation.start();
  return deps;
}
