// An org's workspace: the customers its agents serve (end users and companies) and its
// knowledge base. Every row carries org_id; every query filters on it.
import { sql } from "drizzle-orm";
import { bigint, boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";
import { knowledgeSources } from "./sources.ts";

export const companies = pgTable(
  "companies",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    /** The org's own id for the company (widget `company_id`). */
    externalId: text("external_id").notNull(),
    name: text("name").notNull().default(""),
    traits: jsonb("traits").$type<Record<string, unknown>>().notNull().default({}),
    /**
     * Whether the org vouched for this company: created or written through the dashboard, the API
     * or an import, or by a request whose verified `user_token` names it (its `company_id` claim).
     * A vouched company is never changed by an unverified request (src/workspace/customers.ts).
     */
    verified: boolean("verified").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("companies_org_external_idx").on(t.orgId, t.externalId)],
);

/** The org's customers: people who talk to its agents through the widget or are identified by its backend. */
export const endUsers = pgTable(
  "end_users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    /** The org's own id for the user (widget `user_id`); null for anonymous visitors. */
    externalId: text("external_id"),
    /** Lower-cased. */
    email: text("email"),
    name: text("name").notNull().default(""),
    traits: jsonb("traits").$type<Record<string, unknown>>().notNull().default({}),
    companyId: uuid("company_id").references(() => companies.id, { onDelete: "set null" }),
    /**
     * Whether this record's identity was proven by a valid `user_token` (identity verification, docs/interface.md 5).
     * A verified record is only ever written by verified requests (src/sdk/identity.ts).
     */
    verified: boolean("verified").notNull().default(false),
    /**
     * An unverified visitor kept apart from a verified customer: the `user_id` it claimed, while
     * `external_id` stays null (docs/interface.md D). At most one per claimed id.
     */
    claimedExternalId: text("claimed_external_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("end_users_org_external_idx").on(t.orgId, t.externalId),
    index("end_users_org_email_idx").on(t.orgId, t.email),
    uniqueIndex("end_users_org_claimed_idx").on(t.orgId, t.claimedExternalId).where(sql`${t.claimedExternalId} is not null`),
  ],
);

export type DocStatus = "published" | "draft";

export const docs = pgTable(
  "docs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    /** Markdown. */
    body: text("body").notNull(),
    url: text("url"),
    /** The document's language (ISO 639-1, src/kit/language.ts): set by its writer or import, else detected; null: not known. */
    language: text("language"),
    /**
     * The same article in other languages shares this key (src/knowledge/translations.ts): set by an
     * import (a help centre's article id, a page's hreflang cluster) or linked by hand; null: none.
     */
    translationGroup: text("translation_group"),
    tags: text("tags").array().notNull().default(sql`'{}'::text[]`),
    status: text("status").$type<DocStatus>().notNull().default("published"),
    /** The knowledge source that keeps this doc in sync (src/knowledge/source-docs.ts); null when written by hand. Deleted with it. */
    sourceId: uuid("source_id").references(() => knowledgeSources.id, { onDelete: "cascade" }),
    /** SHA-256 of title and body as the source last wrote them: a doc whose text no longer matches was edited locally. */
    sourceHash: text("source_hash"),
    /**
     * The version (`updated_at` in ms) and embeddings model whose passages the embeddings server
     * refused as input (a 400, 413 or 422: src/knowledge/embed-job.ts): the job passes over that
     * version until an edit or a change of model. Null: none refused.
     */
    embedRefusedVersion: bigint("embed_refused_version", { mode: "number" }),
    embedRefusedModel: text("embed_refused_model"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("docs_org_idx").on(t.orgId), index("docs_org_translation_idx").on(t.orgId, t.translationGroup).where(sql`${t.translationGroup} is not null`)],
);

/**
 * Per-org knowledge settings and state (src/knowledge/synonyms.ts, src/knowledge/docs.ts): the
 * synonyms for knowledge search (groups of words or two-word phrases that mean the same to its
 * customers), and a counter every change to its documents increments, which tells each instance's
 * in-memory index whether it is current (src/knowledge/org-index.ts). One row per org.
 */
export const knowledgeSettings = pgTable("knowledge_settings", {
  orgId: uuid("org_id")
    .primaryKey()
    .references(() => orgs.id, { onDelete: "cascade" }),
  synonyms: jsonb("synonyms").$type<string[][]>().notNull().default([]),
  synonymsUpdatedAt: timestamp("synonyms_updated_at", { withTimezone: true }),
  docsVersion: bigint("docs_version", { mode: "number" }).notNull().default(0),
  /** Incremented with every write of passage vectors (src/knowledge/embed-job.ts): an instance reads the new rows when it differs from what it holds. */
  embeddingsVersion: bigint("embeddings_version", { mode: "number" }).notNull().default(0),
  /** The last failure to embed the org's passages, and when (GET /api/knowledge/embeddings); cleared by the next success. */
  embeddingsError: text("embeddings_error"),
  embeddingsErrorAt: timestamp("embeddings_error_at", { withTimezone: true }),
});
