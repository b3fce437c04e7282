// Read-your-writes for the per-process caches: the tool runtime's per-org
// snapshot and the verified access-token cache. A change drops the cached entry in this process at
// once (synchronously, before the changing request answers), and tells every other instance on the
// same database through PostgreSQL LISTEN/NOTIFY, which delivers within milliseconds. The caches
// keep a short TTL as the bound when a notification is lost (an instance whose listening
// connection is down between the NOTIFY and its reconnect): docs/decisions.md.
import { sql } from "drizzle-orm";
import type { Database, Db } from "./db/client.ts";
import { messageOf } from "./errors.ts";
import type { Logger } from "./log.ts";

/** `tools`: key is an org id; `tokens`: key is ignored (every cached token is dropped). */
/**
 * tools: an org's tool snapshot; tokens: verified access tokens; widget_keys: widget keys and allowed origins; org_settings: an org's agents and
 * model override; texts: an org's overrides of the catalogue's sentences (key: org id for the last two); knowledge: an org's documents' version
 * or synonyms, sent in the changing transaction itself (src/knowledge/state-cache.ts).
 */
export type Topic = "tools" | "tokens" | "widget_keys" | "org_settings" | "texts" | "knowledge";

export interface Invalidation {
  /** Drops `key` here now and tells the other instances. */
  publish(topic: Topic, key: string): void;
  /** Called for every publish, local or from another instance. */
  subscribe(topic: Topic, handler: (key: string) => void): void;
}

export const CHANNEL = "svc_invalidate";

export interface RunningInvalidation extends Invalidation {
  /** Starts listening; resolves once other instances' notifications reach this one. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createInvalidation(options: { db: Db; log: Logger; listen?: Database["listen"] }): RunningInvalidation {
  const instance = crypto.randomUUID();
  const handlers: Record<Topic, ((key: string) => void)[]> = { tools: [], tokens: [], widget_keys: [], org_settings: [], texts: [], knowledge: [] };
  let unlisten: (() => Promise<void>) | undefined;

  function deliver(topic: Topic, key: string) {
    for (const handler of handlers[topic]) handler(key);
  }

  function received(payload: string) {
    try {
      const message = JSON.parse(payload) as { i?: unknown; t?: unknown; k?: unknown };
      if (message.i === instance) return; // our own, already applied
      if (typeof message.t === "string" && Object.hasOwn(handlers, message.t) && typeof message.k === "string") deliver(message.t as Topic, message.k);
    } catch {
      // Not ours: ignore.
    }
  }

  return {
    publish(topic, key) {
      deliver(topic, key);
      const payload = JSON.stringify({ i: instance, t: topic, k: key });
      options.db
        .execute(sql`select pg_notify(${CHANNEL}, ${payload})`)
        .catch((error) => options.log.warn("invalidation notify failed", { topic, error: messageOf(error) }));
    },
    subscribe(topic, handler) {
      handlers[topic].push(handler);
    },
    async start() {
      if (!options.listen || unlisten) return;
      try {
        unlisten = await options.listen(CHANNEL, received);
      } catch (error) {
        // E.g. a transaction-mode connection pooler, which cannot LISTEN: the service still runs,
        // and other instances' changes reach this one within the caches' TTLs.
        options.log.warn("cross-instance invalidation unavailable; other instances' changes arrive within the cache TTLs", { error: messageOf(error) });
      }
    },
    async stop() {
      await unlisten?.().catch(() => {});
      unlisten = undefined;
    },
  };
}
