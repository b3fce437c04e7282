// Which folder owns which table: only modules under the owning folder insert
// into, update or delete from it; everyone else calls the owner's functions. A new table gets
// its line here (the ownership test fails for a table without one), and docs/architecture.md
// lists the same map.
//
// Keys are the drizzle exports of src/db/schema/*.ts; values are folders under src/.
export const OWNERS: Record<string, string> = {
  // src/db/schema/core.ts
  orgs: "src/orgs",
  members: "src/orgs",
  memberships: "src/orgs",
  widgetKeys: "src/orgs",
  memberInvitations: "src/orgs",
  dashboardSessions: "src/auth",
  agents: "src/agents",
  // src/db/schema/oauth.ts
  oauthClients: "src/oauth",
  oauthAuthorizationRequests: "src/oauth",
  oauthGrants: "src/oauth",
  oauthCodes: "src/oauth",
  oauthTokens: "src/oauth",
  // src/db/schema/ratelimit.ts
  rateLimitCounters: "src/ratelimit",
  // src/db/schema/workspace.ts
  companies: "src/customers",
  endUsers: "src/customers",
  docs: "src/knowledge",
  // src/db/schema/tools.ts
  agentActionToggles: "src/tools",
  actionExecutions: "src/tools",
  customActions: "src/integrations",
  // src/db/schema/connectors.ts
  connectors: "src/connectors",
  // src/db/schema/activity.ts
  activityLog: "src/activity",
  // src/db/schema/llm.ts
  orgLlmSettings: "src/agents",
  // src/db/schema/inbox.ts
  ticketCounters: "src/inbox",
  tickets: "src/inbox",
  ticketMessages: "src/inbox",
  ticketHistory: "src/inbox",
  ticketEvents: "src/inbox",
  savedReplies: "src/inbox",
  // src/db/schema/email.ts
  ticketReplyTokens: "src/inbox",
  memberMailNotifications: "src/inbox",
  ticketMemberNotices: "src/inbox",
  ticketInboundEmails: "src/inbound",
  orgMailSettings: "src/inbound",
  // src/db/schema/campaigns.ts, outbox.ts
  campaigns: "src/campaigns",
  campaignEnrolments: "src/campaigns",
  campaignMessages: "src/campaigns",
  campaignOptIns: "src/campaigns",
  mailUnsubscribes: "src/campaigns",
  mailUnsubscribeTokens: "src/campaigns",
  outbox: "src/outbox",
  // src/db/schema/conversations.ts
  conversations: "src/conversations",
  conversationMessages: "src/conversations",
  // src/db/schema/sdk.ts
  widgetSettings: "src/sdk",
  customerEvents: "src/sdk",
  // src/db/schema/webhooks.ts
  webhookEndpoints: "src/webhooks",
  webhookEvents: "src/webhooks",
  webhookDeliveries: "src/webhooks",
  webhookAttempts: "src/webhooks",
};

/**
 * Writes outside the owner that are allowed, each with its reason. Keep this short: the fix is a
 * function in the owning folder.
 */
export const SHARED_WRITES: { table: string; file: string; why: string }[] = [];
