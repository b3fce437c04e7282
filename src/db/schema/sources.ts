// Knowledge sources (README "Knowledge sources"): a website, a help centre or a set of files whose
// pages become docs and are kept in sync. `knowledge_source_pages` remembers, per page, what the
// last sync saw (validators, content hash, misses), so the next sync fetches it conditionally and
// notices when it disappears. Credentials (an Intercom token) are encrypted per field like
// connector credentials.
import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";

export type SourceKind = "website" | "zendesk" | "intercom";
export type SourceStatus = "idle" | "syncing" | "ready" | "failed";

/** What the source reads, by kind; checked by src/sources/model.ts. */
export interface SourceSettings {
  /** website: where the crawl starts (a page or a sitemap). */
  start_url?: string;
  include?: string[];
  exclude?: string[];
  max_pages?: number;
  /** zendesk / intercom: the help centre's base URL and locale. */
  base_url?: string;
  locale?: string;
  /** zendesk / intercom: the locales imported (README "Knowledge sources"); absent: `locale` only (Zendesk), the default language (Intercom). */
  locales?: string[];
  /** website: the languages taken when pages name theirs with hreflang (ISO 639-1); absent: all. */
  languages?: string[];
}

export interface SourceCounts {
  found: number;
  imported: number;
  updated: number;
  unchanged: number;
  failed: number;
  removed: number;
  conflicts: number;
}

export const knowledgeSources = pgTable(
  "knowledge_sources",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    kind: text("kind").$type<SourceKind>().notNull(),
    name: text("name").notNull(),
    settings: jsonb("settings").$type<SourceSettings>().notNull().default({}),
    /** Encrypted credential fields by name (`token`). */
    credentials: jsonb("credentials").$type<Record<string, string>>().notNull().default({}),
    intervalSeconds: integer("interval_seconds").notNull().default(86_400),
    status: text("status").$type<SourceStatus>().notNull().default("idle"),
    lastError: text("last_error"),
    counts: jsonb("counts").$type<SourceCounts>(),
    /** Pages done and found while a sync runs. */
    progress: jsonb("progress").$type<{ done: number; found: number }>(),
    lastSyncAt: timestamp("last_sync_at", { withTimezone: true }),
    /** When the scheduler may next sync it; claimed atomically so one process runs it. */
    nextSyncAt: timestamp("next_sync_at", { withTimezone: true }).notNull().defaultNow(),
    /** A running sync holds the source until then (a crashed process's lease runs out). */
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("knowledge_sources_org_idx").on(t.orgId), index("knowledge_sources_next_sync_idx").on(t.nextSyncAt)],
);

export const knowledgeSourcePages = pgTable(
  "knowledge_source_pages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    sourceId: uuid("source_id")
      .notNull()
      .references(() => knowledgeSources.id, { onDelete: "cascade" }),
    /** The page's canonical URL (the doc's `url`). */
    url: text("url").notNull(),
    docId: uuid("doc_id"),
    etag: text("etag"),
    lastModified: text("last_modified"),
    /** SHA-256 of the extracted title and body. */
    contentHash: text("content_hash"),
    /** Syncs in a row that found the page gone (404/410); at two its doc is removed. */
    misses: integer("misses").notNull().default(0),
    /** Why the last sync could not import it, or that it was edited locally and kept. */
    lastError: text("last_error"),
    seenAt: timestamp("seen_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("knowledge_source_pages_url_idx").on(t.sourceId, t.url),
    index("knowledge_source_pages_doc_idx").on(t.docId).where(sql`${t.docId} is not null`),
  ],
);
