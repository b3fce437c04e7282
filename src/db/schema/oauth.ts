// The OAuth 2.1 authorization server's state (src/oauth). Every secret (client secrets, codes,
// access and refresh tokens, consent CSRF tokens) is stored as its SHA-256 only.
import { boolean, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { dashboardSessions, members, orgs } from "./core.ts";

/** Clients registered through RFC 7591 dynamic registration. */
export const oauthClients = pgTable(
  "oauth_clients",
  {
    /** `client_id`: random, never sequential. */
    id: text("id").primaryKey(),
    /** SHA-256 of the client secret; null for public clients (`token_endpoint_auth_method: none`). */
    secretHash: text("secret_hash"),
    name: text("name").notNull(),
    redirectUris: text("redirect_uris").array().notNull(),
    tokenEndpointAuthMethod: text("token_endpoint_auth_method").notNull(),
    grantTypes: text("grant_types").array().notNull(),
    responseTypes: text("response_types").array().notNull(),
    scope: text("scope"),
    /** Other registered metadata echoed back (client_uri, logo_uri, software_id, …). */
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    /** For public clients: hash of the registering IP and the metadata, to return the same client to an identical registration. */
    fingerprint: text("fingerprint"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** First time a token was issued to this client; clients that never get one are removed. */
    firstTokenAt: timestamp("first_token_at", { withTimezone: true }),
  },
  (t) => [index("oauth_clients_fingerprint_idx").on(t.fingerprint)],
);

/** An authorization request waiting for the member's decision on the consent page. */
export const oauthAuthorizationRequests = pgTable("oauth_authorization_requests", {
  id: uuid("id").primaryKey().defaultRandom(),
  /** SHA-256 of the one-time anti-CSRF token embedded in the consent form. */
  csrfHash: text("csrf_hash").notNull(),
  sessionId: uuid("session_id")
    .notNull()
    .references(() => dashboardSessions.id, { onDelete: "cascade" }),
  clientId: text("client_id")
    .notNull()
    .references(() => oauthClients.id, { onDelete: "cascade" }),
  redirectUri: text("redirect_uri").notNull(),
  /** Whether the client sent redirect_uri (then the token request must repeat it, RFC 6749 section 4.1.3). */
  redirectUriGiven: boolean("redirect_uri_given").notNull(),
  codeChallenge: text("code_challenge").notNull(),
  scopes: text("scopes").array().notNull(),
  resource: text("resource").notNull(),
  state: text("state"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  usedAt: timestamp("used_at", { withTimezone: true }),
});

/** What a member allowed a client to do in one org. Tokens hang off a grant; revoking it ends them all. */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    clientId: text("client_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    memberId: uuid("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    scopes: text("scopes").array().notNull(),
    resource: text("resource").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [index("oauth_grants_client_member_idx").on(t.clientId, t.memberId, t.orgId)],
);

export const oauthCodes = pgTable("oauth_codes", {
  id: uuid("id").primaryKey().defaultRandom(),
  codeHash: text("code_hash").notNull().unique(),
  grantId: uuid("grant_id")
    .notNull()
    .references(() => oauthGrants.id, { onDelete: "cascade" }),
  clientId: text("client_id").notNull(),
  redirectUri: text("redirect_uri").notNull(),
  redirectUriGiven: boolean("redirect_uri_given").notNull(),
  codeChallenge: text("code_challenge").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  consumedAt: timestamp("consumed_at", { withTimezone: true }),
});

export type OAuthTokenKind = "access" | "refresh";

export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tokenHash: text("token_hash").notNull().unique(),
    kind: text("kind").$type<OAuthTokenKind>().notNull(),
    grantId: uuid("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    /** What this token may do: the grant's scopes, or fewer when a refresh narrowed them (RFC 6749 section 6). */
    scopes: text("scopes").array().notNull(),
    /** Refresh tokens: the refresh token this one was rotated from. */
    parentId: uuid("parent_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** Refresh tokens: set when a successor was first used; using this one afterwards is reuse. */
    supersededAt: timestamp("superseded_at", { withTimezone: true }),
  },
  (t) => [index("oauth_tokens_grant_idx").on(t.grantId), index("oauth_tokens_expires_idx").on(t.expiresAt)],
);
