// Saved replies: per-org snippets the team inserts into a reply, with variables filled in at
// insertion ({{customer.name}}, {{ticket.number}}, {{agent.name}}). Written only by src/inbox/.
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";

export const savedReplies = pgTable(
  "saved_replies",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    /** What the team picks it by (the `/` shortcut and the select); unique per org. */
    name: text("name").notNull(),
    body: text("body").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("saved_replies_org_name_idx").on(t.orgId, t.name), index("saved_replies_org_idx").on(t.orgId)],
);
