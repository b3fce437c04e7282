// The service's configuration: read from the environment once at boot, validated, frozen, and
// passed down. Nothing else reads process.env. Every variable is documented in the README.
import { type EmbeddingsConfig, embeddingsConfig } from "./config/embeddings.ts";
import { type DkimConfig, emailChannelConfig, type InboundConfig, mailConfig } from "./config/mail.ts";
import { ConfigError, type Env, flag, integer, oneOf } from "./config/read.ts";
import { type SpeechConfig, speechConfig } from "./config/speech.ts";

export { ConfigError };

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

export interface Config {
  /** TCP port to listen on. Default 3000. */
  port: number;
  /** Interface to bind. Default 0.0.0.0. */
  host: string;
  /** Public origin used in every absolute URL the service emits, without trailing slash. */
  baseUrl: string;
  /** `postgres://…` → PostgreSQL; undefined → embedded PGlite in `dataDir`. */
  databaseUrl?: string;
  /**
   * DATABASE_PREPARE=0: no named prepared statements on PostgreSQL (src/db/named-statements.ts),
   * for a connection pooler in transaction mode that does not track them (PgBouncer before 1.21).
   */
  databasePrepare: boolean;
  /** How long a request waits for a PostgreSQL connection before it is answered 503 (README "Faults and shutdown"). */
  databaseConnectTimeoutSeconds: number;
  /** How long SIGTERM lets in-flight requests, streams and deliveries finish (README "Faults and shutdown"). */
  shutdownGraceSeconds: number;
  /** Where embedded mode keeps its database, lock and generated secret key. Default ./data. */
  dataDir: string;
  /** 32-byte key for field encryption, when given by SECRET_KEY (see src/crypto/secret-key.ts). */
  secretKey?: Buffer;
  /** `development` relaxes exactly one thing: connector URLs may be loopback http. */
  nodeEnv: "development" | "production" | "test";
  logLevel: LogLevel;
  /** SERVER_TIMING=1: tool server answers carry a Server-Timing header (W3C) with their stages; for benchmarks and profiling. */
  serverTiming: boolean;
  /** METRICS_PORT: GET /metrics on a listener of its own (same HOST), no token needed there. Unset: no such listener. */
  metricsPort?: number;
  /** METRICS_TOKEN: GET /metrics on the public port too, for `Authorization: Bearer <token>` (compared in constant time). */
  metricsToken?: string;
  /** Seed a demo organisation on first start. SEED_DEMO=0 disables. */
  seedDemo: boolean;
  /** Take the client IP from the first X-Forwarded-For hop (only behind a proxy you run). */
  trustProxy: boolean;
  /** How long a dashboard session lives. Default 7 days. */
  sessionTtlHours: number;
  /** OAuth access token lifetime (`expires_in`). Default 3600 (docs/interface.md 2.4). */
  oauthAccessTokenTtlSeconds: number;
  /** OAuth refresh token lifetime; each rotation starts a new one. Default 90 days. */
  oauthRefreshTokenTtlDays: number;
  /** Dynamically registered clients that never obtained a token are removed after this. Default 24 h. */
  oauthUnusedClientTtlHours: number;
  /** Calls per minute of one action by one org, over every channel and token. Default 600. */
  actionRateLimitPerMinute: number;
  /** Tool server requests per minute per access token (docs/interface.md 8.1): tools/list, tools/call, everything else. */
  mcpTokenLimits: { list: number; call: number; other: number };
  /** Widget SDK requests per minute (README "Widget SDK"): per widget key and client IP, per org, tickets per key and IP, config per IP. */
  sdkLimits: { perKeyIp: number; perOrg: number; ticketsPerKeyIp: number; configPerIp: number };
  /**
   * Live conversation event streams (README "Live conversation"): open at once per widget key and client IP, open at once per process, seconds
   * between heartbeats.
   */
  sdkStreams: { perKeyIp: number; max: number; heartbeatSeconds: number };
  /** How often every live connector is discovered again. Default 1 hour. */
  connectorDiscoveryIntervalSeconds: number;
  /** Milliseconds between two requests of a knowledge source's crawl to one host (README "Knowledge sources"). Default 500. */
  websiteCrawlDelayMs: number;
  /** The most documents an org may hold for knowledge sources to add one more (README "Knowledge sources"). Default 20,000. */
  knowledgeMaxDocsPerOrg: number;
  /** The most bytes (UTF-8, document bodies) an org may hold for knowledge sources and uploads to add more (README "Knowledge sources"). Default 1 GiB. */
  knowledgeMaxBytesPerOrg: number;
  /** Seconds between two looks for knowledge sources due to sync (README "Knowledge sources"). Default 30. */
  knowledgeSyncTickSeconds: number;
  /** How long admin activity log rows are kept (src/activity). Default 365 days. */
  activityRetentionDays: number;
  /** The operator's default language model; orgs and agents may override it (src/agents/llm/provider.ts). */
  llm: LlmConfig;
  /** SMTP_URL: smtp:// or smtps:// with credentials. Unset: mail is rendered and kept in the outbox, not sent. */
  smtpUrl?: string;
  /** MAIL_FROM: the From address of every email (campaigns set only the display name). Default no-reply@<BASE_URL host>. */
  mailFrom: string;
  /** WEBHOOK_RETRY_SCHEDULE: seconds to wait after the 1st, 2nd, … failed webhook attempt; then the delivery fails. */
  webhookRetrySchedule: readonly number[];
  /** DKIM_DOMAIN, DKIM_SELECTOR, DKIM_PRIVATE_KEY (a PEM, or the path of one): every outgoing email is signed (RFC 6376). Unset: unsigned. */
  dkim?: DkimConfig;
  /** The email channel of tickets (README "Email channel"). */
  inbound: InboundConfig;
  /** Server speech to text and text to speech (README "Voice and video"). */
  speech: SpeechConfig;
  /** The operator's embeddings server (src/config/embeddings.ts); unset: lexical retrieval only. */
  embeddings?: EmbeddingsConfig;
}

export interface LlmConfig {
  /** LLM_PROVIDER: builtin (default: extractive answers, no network, no key) | openai | anthropic. */
  provider: "builtin" | "openai" | "anthropic";
  /** LLM_BASE_URL, trusted (the operator's); default the vendor's public API for openai/anthropic. */
  baseUrl: string;
  /** LLM_API_KEY; optional (a local Ollama needs none). */
  apiKey?: string;
  /** LLM_MODEL; required for openai and anthropic. */
  model: string;
  /** LLM_TIMEOUT_SECONDS: total deadline of one model request, retry included. Default 60. */
  timeoutSeconds: number;
  /** LLM_MAX_TOKENS: the most tokens one answer may generate. Default 1024. */
  maxTokens: number;
}

/** The public API of each provider, used when no base URL is configured. */
export const LLM_DEFAULT_BASE_URLS = { builtin: "", openai: "https://api.openai.com/v1", anthropic: "https://api.anthropic.com" } as const;

/** Comma-separated durations (`5s,5m,30m,2h,1d`), each 1 s to 7 days, at most 20 of them. */
function retrySchedule(env: Env, name: string, fallback: string): number[] {
  const raw = env[name] || fallback;
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
  const parts = raw.split(",").map((p) => p.trim());
  const seconds = parts.map((p) => {
    const match = /^(\d{1,6})([smhd])$/.exec(p);
    return match ? Number(match[1]) * units[match[2]!]! : NaN;
  });
  if (parts.length > 20 || seconds.some((s) => !(s >= 1 && s <= 7 * 86_400)))
    throw new ConfigError(name, `must be 1 to 20 comma-separated durations of 1s to 7d such as 5s,5m,30m,2h (got ${JSON.stringify(raw)})`);
  return seconds;
}

function llmConfig(env: Env): LlmConfig {
  const provider = oneOf(env, "LLM_PROVIDER", ["builtin", "openai", "anthropic"] as const, "builtin");
  let baseUrl: string = LLM_DEFAULT_BASE_URLS[provider];
  if (env.LLM_BASE_URL) {
    let url: URL | undefined;
    try {
      url = new URL(env.LLM_BASE_URL);
    } catch {}
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password || url.hash)
      throw new ConfigError(
        "LLM_BASE_URL",
        `must be an absolute http(s) URL with no credentials or fragment, e.g. http://127.0.0.1:11434/v1 (got ${JSON.stringify(env.LLM_BASE_URL)})`,
      );
    // A query (e.g. a gateway's ?api-version=) is kept; the endpoint path goes before it.
    url.pathname = url.pathname.replace(/\/+$/, "");
    baseUrl = url.href.replace(/\/(?=$|\?)/, "");
  }
  const model = env.LLM_MODEL || (provider === "builtin" ? "builtin-extractive" : "");
  if (model === "") throw new ConfigError("LLM_MODEL", `is required when LLM_PROVIDER is ${provider} (e.g. gpt-4o-mini, llama3.1, claude-sonnet-4-5)`);
  if (model.length > 200) throw new ConfigError("LLM_MODEL", "must be at most 200 characters");
  return {
    provider,
    baseUrl,
    apiKey: env.LLM_API_KEY || undefined,
    model,
    timeoutSeconds: integer(env, "LLM_TIMEOUT_SECONDS", 60, 1, 600),
    maxTokens: integer(env, "LLM_MAX_TOKENS", 1024, 1, 200_000),
  };
}

function origin(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL such as https://agents.example.com (got ${JSON.stringify(raw)})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(name, `must use http or https (got ${JSON.stringify(raw)})`);
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password)
    throw new ConfigError(name, `must be an origin with no path, query, fragment or credentials (got ${JSON.stringify(raw)})`);
  return url.origin;
}

export function parseSecretKey(raw: string, name = "SECRET_KEY"): Buffer {
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(raw) ? Buffer.from(raw, "base64") : Buffer.alloc(0);
  if (bytes.length !== 32) throw new ConfigError(name, "must be 32 random bytes, base64-encoded (e.g. the output of `openssl rand -base64 32`)");
  return bytes;
}

/** A bearer token an operator chose: long enough not to be guessed, and only header-safe characters. */
function metricsToken(env: Env): string | undefined {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === "") return undefined;
  if (!/^[A-Za-z0-9._~+\/=-]{32,256}$/.test(raw))
    throw new ConfigError("METRICS_TOKEN", "must be 32 to 256 characters of A-Z a-z 0-9 . _ ~ + / = - (e.g. the output of `openssl rand -hex 32`)");
  return raw;
}

/** Parses the environment. Throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env): Readonly<Config> {
  const port = integer(env, "PORT", 3000, 1, 65535);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\/./.test(databaseUrl))
    throw new ConfigError("DATABASE_URL", "must be a postgres:// or postgresql:// URL (unset it to use the embedded database)");
  const secretKey = env.SECRET_KEY ? parseSecretKey(env.SECRET_KEY) : undefined;
  if (databaseUrl !== undefined && secretKey === undefined)
    throw new ConfigError("SECRET_KEY", "is required when DATABASE_URL is set (32 random bytes, base64: `openssl rand -base64 32`)");
  const host = env.HOST || "0.0.0.0";
  return Object.freeze({
    port,
    host,
    baseUrl: origin(env.BASE_URL || `http://localhost:${port}`, "BASE_URL"),
    databaseUrl,
    databasePrepare: flag(env, "DATABASE_PREPARE", true),
    databaseConnectTimeoutSeconds: integer(env, "DATABASE_CONNECT_TIMEOUT_SECONDS", 5, 1, 300),
    shutdownGraceSeconds: integer(env, "SHUTDOWN_GRACE_SECONDS", 10, 0, 3600),
    dataDir: env.DATA_DIR || "./data",
    secretKey,
    nodeEnv: oneOf(env, "NODE_ENV", ["development", "production", "test"] as const, "production"),
    logLevel: oneOf(env, "LOG_LEVEL", ["debug", "info", "warn", "error", "silent"] as const, "info"),
    serverTiming: flag(env, "SERVER_TIMING", false),
    metricsPort: env.METRICS_PORT ? integer(env, "METRICS_PORT", 0, 1, 65535) : undefined,
    metricsToken: metricsToken(env),
    seedDemo: flag(env, "SEED_DEMO", true),
    trustProxy: flag(env, "TRUST_PROXY", false),
    sessionTtlHours: integer(env, "SESSION_TTL_HOURS", 24 * 7, 1, 24 * 365),
    oauthAccessTokenTtlSeconds: integer(env, "OAUTH_ACCESS_TOKEN_TTL_SECONDS", 3600, 1, 24 * 3600),
    oauthRefreshTokenTtlDays: integer(env, "OAUTH_REFRESH_TOKEN_TTL_DAYS", 90, 1, 3650),
    oauthUnusedClientTtlHours: integer(env, "OAUTH_UNUSED_CLIENT_TTL_HOURS", 24, 1, 24 * 365),
    actionRateLimitPerMinute: integer(env, "ACTION_RATE_LIMIT_PER_MINUTE", 600, 1, 100_000_000),
    mcpTokenLimits: {
      list: integer(env, "MCP_TOKEN_LIMIT_LIST_PER_MINUTE", 60, 1, 100_000_000),
      call: integer(env, "MCP_TOKEN_LIMIT_CALL_PER_MINUTE", 120, 1, 100_000_000),
      other: integer(env, "MCP_TOKEN_LIMIT_OTHER_PER_MINUTE", 60, 1, 100_000_000),
    },
    sdkLimits: {
      perKeyIp: integer(env, "SDK_RATE_LIMIT_PER_KEY_IP_PER_MINUTE", 600, 1, 100_000_000),
      perOrg: integer(env, "SDK_RATE_LIMIT_PER_ORG_PER_MINUTE", 12_000, 1, 100_000_000),
      ticketsPerKeyIp: integer(env, "SDK_TICKETS_PER_KEY_IP_PER_MINUTE", 20, 1, 100_000_000),
      configPerIp: integer(env, "SDK_CONFIG_PER_IP_PER_MINUTE", 300, 1, 100_000_000),
    },
    sdkStreams: {
      perKeyIp: integer(env, "SDK_STREAMS_PER_KEY_IP", 5, 1, 1000),
      max: integer(env, "SDK_STREAMS_MAX", 5000, 1, 1_000_000),
      heartbeatSeconds: integer(env, "SDK_STREAM_HEARTBEAT_SECONDS", 20, 1, 25),
    },
    connectorDiscoveryIntervalSeconds: integer(env, "CONNECTOR_DISCOVERY_INTERVAL_SECONDS", 3600, 1, 7 * 86_400),
    websiteCrawlDelayMs: integer(env, "WEBSITE_CRAWL_DELAY_MS", 500, 0, 60_000),
    knowledgeSyncTickSeconds: integer(env, "KNOWLEDGE_SYNC_TICK_SECONDS", 30, 1, 3600),
    knowledgeMaxDocsPerOrg: integer(env, "KNOWLEDGE_MAX_DOCS_PER_ORG", 20_000, 1, 1_000_000),
    knowledgeMaxBytesPerOrg: integer(env, "KNOWLEDGE_MAX_BYTES_PER_ORG", 1_073_741_824, 1, 1_099_511_627_776),
    activityRetentionDays: integer(env, "ACTIVITY_RETENTION_DAYS", 365, 1, 3650),
    llm: llmConfig(env),
    ...mailConfig(env, env.BASE_URL || `http://localhost:${port}`),
    webhookRetrySchedule: retrySchedule(env, "WEBHOOK_RETRY_SCHEDULE", "5s,5m,30m,2h,5h,10h,10h"),
    ...emailChannelConfig(env),
    ...speechConfig(env),
    ...embeddingsConfig(env),
  });
}
