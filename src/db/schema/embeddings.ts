// Passage vectors of the org's published documents (src/knowledge/embed-job.ts writes them,
// src/knowledge/embed-search.ts reads them; docs/decisions.md "Knowledge retrieval"). One row per
// passage of one version of a document, for one model: a document's rows are written together, in
// one transaction, once every passage of its version has a vector, and the rows of its other
// versions and models are deleted in the same transaction. Deleted with the document.
import { bigint, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";
import { docs } from "./workspace.ts";

export const passageEmbeddings = pgTable(
  "passage_embeddings",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    docId: uuid("doc_id")
      .notNull()
      .references(() => docs.id, { onDelete: "cascade" }),
    /** The document's `updated_at` in milliseconds: the version these passages were cut from. */
    docVersion: bigint("doc_version", { mode: "number" }).notNull(),
    /** The passage's place in its document (src/knowledge/embed-passages.ts). */
    seq: integer("seq").notNull(),
    /** SHA-256 of the text that was embedded: an edit re-embeds only the passages it changed. */
    hash: text("hash").notNull(),
    model: text("model").notNull(),
    text: text("text").notNull(),
    headings: jsonb("headings").$type<string[]>().notNull(),
    dims: integer("dims").notNull(),
    /** The vector as float32 little-endian, unit length, base64: the same bytes through either engine's driver. */
    vector: text("vector").notNull(),
  },
  (t) => [
    uniqueIndex("passage_embeddings_passage_idx").on(t.docId, t.docVersion, t.model, t.seq),
    index("passage_embeddings_org_idx").on(t.orgId, t.model, t.seq),
    index("passage_embeddings_hash_idx").on(t.orgId, t.hash),
  ],
);
