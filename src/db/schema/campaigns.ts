// Email series: campaigns with their ordered steps, who is enrolled where, each
// message a step produced (its delivery lives in the outbox), and who unsubscribed. Every row
// carries org_id; every query filters on it. Written only by src/campaigns/ and src/mail/.
import { sql } from "drizzle-orm";
import { check, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";
import { outbox } from "./outbox.ts";
import { endUsers } from "./workspace.ts";

export type CampaignStatus = "draft" | "active" | "paused" | "archived";

/** One step of a series. `id` is stable across edits: a sent step is known by it and never sent again. */
export interface CampaignStep {
  id: string;
  /** Seconds after the anchor. */
  delaySeconds: number;
  /** enrolment: after the customer was enrolled; previous: after the previous step was queued. */
  delayFrom: "enrolment" | "previous";
  subject: string;
  /** Markdown with {{variables}}. */
  body: string;
}

/** Automatic enrolment: a customer matches when every condition on their traits holds. */
export interface AudienceRule {
  all: { trait: string; op: "eq" | "neq" | "exists" | "not_exists" | "in"; value?: string | number | boolean | (string | number | boolean)[] }[];
}

export interface CampaignSender {
  /** Display name in From:. The address is always MAIL_FROM's (SPF/DKIM are the operator's). */
  name: string;
  /** Where replies go (Reply-To), when given. */
  replyTo?: string;
}

export const campaigns = pgTable(
  "campaigns",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    /** Stable, per org; how the SDK names a campaign. Never changes after creation. */
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    status: text("status").$type<CampaignStatus>().notNull().default("draft"),
    steps: jsonb("steps").$type<CampaignStep[]>().notNull().default([]),
    audience: jsonb("audience").$type<AudienceRule | null>(),
    sender: jsonb("sender").$type<CampaignSender>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
    /** When the audience rule was last applied (automatic enrolment sweeps). */
    audienceSweptAt: timestamp("audience_swept_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("campaigns_org_slug_idx").on(t.orgId, t.slug),
    index("campaigns_org_created_idx").on(t.orgId, t.createdAt),
    check("campaigns_status_check", sql`${t.status} in ('draft', 'active', 'paused', 'archived')`),
  ],
);

export type EnrolmentState = "active" | "completed" | "removed" | "unsubscribed";

export const campaignEnrolments = pgTable(
  "campaign_enrolments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    campaignId: uuid("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    endUserId: uuid("end_user_id")
      .notNull()
      .references(() => endUsers.id, { onDelete: "cascade" }),
    state: text("state").$type<EnrolmentState>().notNull().default("active"),
    /** How they came in: api (dashboard), sdk, tool, audience. */
    source: text("source").notNull(),
    enrolledAt: timestamp("enrolled_at", { withTimezone: true }).notNull(),
    /** When the latest step was queued: the anchor of "after the previous step". */
    lastStepAt: timestamp("last_step_at", { withTimezone: true }),
    /** When the sender should look at this enrolment next (null: nothing left to do). */
    wakeAt: timestamp("wake_at", { withTimezone: true }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("campaign_enrolments_campaign_user_idx").on(t.campaignId, t.endUserId),
    index("campaign_enrolments_wake_idx").on(t.state, t.wakeAt),
    index("campaign_enrolments_org_user_idx").on(t.orgId, t.endUserId),
    check("campaign_enrolments_state_check", sql`${t.state} in ('active', 'completed', 'removed', 'unsubscribed')`),
  ],
);

/**
 * One step rendered for one customer: what was (or will be) sent. Unique per enrolment and step,
 * so a step is queued at most once per customer whatever edits or concurrent senders do. The
 * body holds UNSUBSCRIBE_MARK where the per-send unsubscribe URL goes (the token is only hashed).
 */
export const campaignMessages = pgTable(
  "campaign_messages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    campaignId: uuid("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    enrolmentId: uuid("enrolment_id")
      .notNull()
      .references(() => campaignEnrolments.id, { onDelete: "cascade" }),
    endUserId: uuid("end_user_id")
      .notNull()
      .references(() => endUsers.id, { onDelete: "cascade" }),
    stepId: text("step_id").notNull(),
    outboxId: uuid("outbox_id")
      .notNull()
      .references(() => outbox.id, { onDelete: "cascade" }),
    toEmail: text("to_email"),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("campaign_messages_enrolment_step_idx").on(t.enrolmentId, t.stepId),
    index("campaign_messages_org_campaign_idx").on(t.orgId, t.campaignId, t.createdAt),
    uniqueIndex("campaign_messages_outbox_idx").on(t.outboxId),
    index("campaign_messages_org_user_idx").on(t.orgId, t.endUserId),
  ],
);

/** Customers who unsubscribed: no campaign mails them again (checked when queueing and when sending). */
export const mailUnsubscribes = pgTable(
  "mail_unsubscribes",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    endUserId: uuid("end_user_id")
      .notNull()
      .references(() => endUsers.id, { onDelete: "cascade" }),
    /** The message whose link was used. */
    messageId: uuid("message_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.endUserId] })],
);

/** One unguessable token per sent message (RFC 8058 link), stored only as its SHA-256. */
export const mailUnsubscribeTokens = pgTable(
  "mail_unsubscribe_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    endUserId: uuid("end_user_id")
      .notNull()
      .references(() => endUsers.id, { onDelete: "cascade" }),
    messageId: uuid("message_id")
      .notNull()
      .references(() => campaignMessages.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("mail_unsubscribe_tokens_message_idx").on(t.messageId)],
);

/**
 * Double opt-in: a request to join a series made by email alone through the public widget key,
 * for an address no one has proven. It starts nothing until the address's owner confirms through
 * the link mailed to it (src/campaigns/opt-in.ts). The link's token is stored as its SHA-256 (the
 * lookup) and sealed with the field cipher (so a retried delivery mails the same link); the sealed
 * copy is dropped once confirmed. Unconfirmed rows are deleted when they expire; confirmed ones
 * stay as the record of consent, with the customer who was enrolled.
 */
export const campaignOptIns = pgTable(
  "campaign_opt_ins",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    campaignId: uuid("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    /** Lower-cased. */
    email: text("email").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    tokenSealed: text("token_sealed"),
    /** The customer enrolled when the link was confirmed. */
    endUserId: uuid("end_user_id").references(() => endUsers.id, { onDelete: "set null" }),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    confirmedAt: timestamp("confirmed_at", { withTimezone: true }),
  },
  (t) => [
    index("campaign_opt_ins_org_email_idx").on(t.orgId, t.email),
    index("campaign_opt_ins_expiry_idx").on(t.expiresAt).where(sql`${t.confirmedAt} is null`),
  ],
);
