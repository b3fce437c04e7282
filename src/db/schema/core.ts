// Core tenancy: organisations, the people who sign in to the dashboard, their roles, and the
// agents and widget keys every org starts with. Feature areas add their own files beside this one.
import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp("updated_at", { withTimezone: true }).notNull().defaultNow();

export const orgs = pgTable("orgs", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  /** Public widget settings (docs/interface.md 2.7 `organization.settings`). Never holds secrets. */
  settings: jsonb("settings").$type<Record<string, unknown>>().notNull().default({}),
  /** Feature flags by name, e.g. `{ "mcp_external_servers": true }`; absent means off. */
  featureFlags: jsonb("feature_flags").$type<Record<string, boolean>>().notNull().default({}),
  identityVerification: boolean("identity_verification").notNull().default(false),
  /** HS256 secret for widget `user_token`s, encrypted with SECRET_KEY (crypto/fields.ts). */
  identitySecret: text("identity_secret").notNull(),
  /** The secret before the last rotation; accepted until `identitySecretPreviousUntil` or until cleared (docs/interface.md D). */
  identitySecretPrevious: text("identity_secret_previous"),
  /** When the previous secret stops verifying: the rotation plus IDENTITY_ROTATION_OVERLAP_MS. */
  identitySecretPreviousUntil: timestamp("identity_secret_previous_until", { withTimezone: true }),
  isDemo: boolean("is_demo").notNull().default(false),
  /** When people answer (src/kit/business-hours.ts); null: always, no promise of a time is made. */
  businessHours: jsonb("business_hours").$type<Record<string, unknown> | null>(),
  /** The language (ISO 639-1, src/kit/language.ts) a customer is addressed in when nothing says theirs. */
  defaultLanguage: text("default_language").notNull().default("en"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** A person who signs in to the dashboard. One member may belong to several orgs. */
export const members = pgTable("members", {
  id: uuid("id").primaryKey().defaultRandom(),
  /** Stored lower-cased; unique across the instance. */
  email: text("email").notNull().unique(),
  name: text("name").notNull().default(""),
  /** An https image shown beside the member's replies in the widget (src/orgs/account.ts); null: none. */
  avatarUrl: text("avatar_url"),
  /** argon2id (Bun.password), PHC string. */
  passwordHash: text("password_hash").notNull(),
  /** The language the member reads (ISO 639-1); null: English. Customer messages in another language are shown translated. */
  language: text("language"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const memberships = pgTable(
  "memberships",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    memberId: uuid("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    /** Role names from src/auth/roles.ts. */
    roles: text("roles").array().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.memberId] }), index("memberships_member_idx").on(t.memberId)],
);

/** Dashboard sessions (cookie or `Authorization: Bearer`). Only the SHA-256 of the token is kept. */
export const dashboardSessions = pgTable(
  "dashboard_sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tokenHash: text("token_hash").notNull().unique(),
    memberId: uuid("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("dashboard_sessions_member_idx").on(t.memberId), index("dashboard_sessions_expires_idx").on(t.expiresAt)],
);

/**
 * Password reset links (src/orgs/password-reset.ts): only the token's SHA-256 is kept. A row is
 * usable once, until `expires_at`; issuing a new link for a member ends their earlier ones.
 */
export const passwordResets = pgTable(
  "password_resets",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    memberId: uuid("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [index("password_resets_member_idx").on(t.memberId)],
);

/**
 * Invitations to join an org (src/orgs/invitations.ts). The link `/invite/<token>` is shown once to
 * the admin who invited; only the token's SHA-256 is kept, and a lookup finds the row by that hash.
 * A row is pending until accepted, revoked or past `expires_at`; at most one pending row per email
 * and org (inviting again revokes the earlier link).
 */
export const memberInvitations = pgTable(
  "member_invitations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    /** Stored lower-cased, like members.email. */
    email: text("email").notNull(),
    /** Role names from src/auth/roles.ts, granted on acceptance. */
    roles: text("roles").array().notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    invitedBy: uuid("invited_by").references(() => members.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    acceptedBy: uuid("accepted_by").references(() => members.id, { onDelete: "set null" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [
    index("member_invitations_org_idx").on(t.orgId, t.createdAt),
    uniqueIndex("member_invitations_one_open").on(t.orgId, t.email).where(sql`${t.acceptedAt} is null and ${t.revokedAt} is null`),
  ],
);

export type AgentStatus = "active" | "inactive" | "disabled";

/** One triage rule: when a message matches, it goes to `team` without a model (C8). */
export interface RoutingRule {
  match: { keywords?: string[]; intent?: string };
  team: string;
  action?: "route" | "handoff";
}

/** A model chosen by an org admin (src/agents/llm/provider.ts). `api_key` holds ciphertext only. */
export interface LlmOverride {
  provider: "builtin" | "openai" | "anthropic";
  base_url: string | null;
  model: string | null;
  api_key: string | null;
}

export const agents = pgTable(
  "agents",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** System instructions; never leaves the server (redacted from docs/interface.md 2.7 config). */
    instructions: text("instructions").notNull().default(""),
    skills: jsonb("skills").$type<string[]>().notNull().default([]),
    status: text("status").$type<AgentStatus>().notNull().default("inactive"),
    avatarConfig: jsonb("avatar_config").$type<Record<string, unknown>>().notNull().default({}),
    voiceConfig: jsonb("voice_config").$type<Record<string, unknown>>().notNull().default({}),
    flowConfig: jsonb("flow_config").$type<{ steps: unknown[]; custom_variables: unknown[] }>().notNull().default({ steps: [], custom_variables: [] }),
    liveHelpLabel: text("live_help_label").notNull().default("Talk to a person"),
    videoDisplayMode: text("video_display_mode").notNull().default("inline"),
    /** Triage rules: a keyword or intent match routes to a team (src/agents/service.ts). */
    routingRules: jsonb("routing_rules").$type<RoutingRule[]>().notNull().default([]),
    /** This agent's model, over the org's and the operator's; the API key in it is encrypted. */
    llmOverride: jsonb("llm_override").$type<LlmOverride | null>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("agents_org_idx").on(t.orgId),
    // At most one active agent per org: it answers when a request names no agent (docs/interface.md 2.5 agent_id).
    uniqueIndex("agents_one_active_per_org").on(t.orgId).where(sql`${t.status} = 'active'`),
  ],
);

/**
 * Publishable widget keys (`ab_live_…`, docs/interface.md 5). They are public by design (embedded in every page
 * that loads the widget) and identify an org, so they are stored as-is to be shown again in the
 * install snippet; they grant nothing beyond the public widget endpoints.
 */
export const widgetKeys = pgTable(
  "widget_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    key: text("key").notNull().unique(),
    label: text("label").notNull().default("default"),
    createdAt: createdAt(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [index("widget_keys_org_idx").on(t.orgId)],
);
