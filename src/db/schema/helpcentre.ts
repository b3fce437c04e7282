// The public help centre (src/helpcentre/): one row of settings per org, and what customers do on
// it (src/knowledge/help-signals.ts): views and helpfulness per article, searches that found nothing.
import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";
import { docs } from "./workspace.ts";

export const helpCentres = pgTable(
  "help_centres",
  {
    orgId: uuid("org_id")
      .primaryKey()
      .references(() => orgs.id, { onDelete: "cascade" }),
    enabled: boolean("enabled").notNull().default(false),
    /** The path segment of /help/<slug>; unique across the instance. */
    slug: text("slug").notNull(),
    /** A host name the org points at us (lower-case, no port); served only once `domainVerifiedAt` is set. */
    customDomain: text("custom_domain"),
    /** The value the TXT record at `_svc-agents.<custom domain>` must hold; random, not secret. */
    domainToken: text("domain_token").notNull(),
    domainVerifiedAt: timestamp("domain_verified_at", { withTimezone: true }),
    /** The public tags, in the order their collections are shown: an article is public only with one of them. */
    collections: text("collections").array().notNull().default(sql`'{}'::text[]`),
    footer: text("footer").notNull().default(""),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("help_centres_slug_idx").on(t.slug), uniqueIndex("help_centres_domain_idx").on(t.customDomain)],
);

export const helpArticleStats = pgTable(
  "help_article_stats",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    docId: uuid("doc_id")
      .notNull()
      .references(() => docs.id, { onDelete: "cascade" }),
    views: bigint("views", { mode: "number" }).notNull().default(0),
    helpful: integer("helpful").notNull().default(0),
    notHelpful: integer("not_helpful").notNull().default(0),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.docId] })],
);

export const helpSearchMisses = pgTable(
  "help_search_misses",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    /** As typed, whitespace folded, at most 200 characters. */
    query: text("query").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("help_search_misses_org_idx").on(t.orgId, t.createdAt)],
);
