// Which folder owns which table: only modules under the owning folder import it from db/schema,
// so only they read, insert into, update or delete from it; everyone else calls the owner's functions. A new table gets
// its line here (the ownership test fails for a table without one), and docs/architecture.md
// lists the same map.
//
// Keys are the drizzle exports of src/db/schema/*.ts; values are folders under src/.
export const OWNERS: Record<string, string> = {
  // src/db/schema/core.ts
  orgs: "src/tenancy",
  members: "src/tenancy",
  memberships: "src/tenancy",
  widgetKeys: "src/orgs",
  memberInvitations: "src/orgs",
  passwordResets: "src/orgs",
  dashboardSessions: "src/auth",
  agents: "src/agents",
  // src/db/schema/texts.ts
  orgTexts: "src/texts",
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
  customerEvents: "src/customers", // src/db/schema/sdk.ts
  docs: "src/knowledge",
  // src/db/schema/sources.ts
  knowledgeSources: "src/sources",
  knowledgeSourcePages: "src/sources",
  knowledgeSettings: "src/knowledge",
  passageEmbeddings: "src/knowledge",
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
  orgSpeechSettings: "src/sdk",
  // src/db/schema/eval.ts
  evalRuns: "src/agents",
  // src/db/schema/inbox.ts
  ticketCounters: "src/inbox",
  tickets: "src/inbox",
  ticketMessages: "src/inbox",
  ticketHistory: "src/inbox",
  ticketEvents: "src/inbox",
  ticketCsatTokens: "src/inbox",
  savedReplies: "src/inbox",
  // src/db/schema/email.ts
  ticketReplyTokens: "src/inbox",
  memberMailNotifications: "src/inbox",
  ticketMemberNotices: "src/inbox",
  ticketInboundEmails: "src/mail-in",
  orgMailSettings: "src/mail-in",
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
  // src/db/schema/webhooks.ts
  webhookEndpoints: "src/webhooks",
  webhookEvents: "src/webhooks",
  webhookDeliveries: "src/webhooks",
  webhookAttempts: "src/webhooks",
  // src/db/schema/translation.ts
  orgTranslationSettings: "src/translation",
  messageTranslations: "src/translation",
  // src/db/schema/helpcentre.ts
  helpCentres: "src/helpcentre",
  helpArticleStats: "src/knowledge",
  helpSearchMisses: "src/knowledge",
};

/**
 * Writes outside the owner that are allowed, each with its reason. Keep this short: the fix is a
 * function in the owning folder.
 */
export const SHARED_WRITES: { table: string; file: string; why: string }[] = [];

/**
 * Imports of another owner's table from db/schema (reads) that remain, each with its reason; the
 * ownership test fails on any other one, and on a line here that no longer happens. The fix is a
 * function in the owning folder (docs/decisions.md "Storage behind each owner"); shrink this list,
 * never grow it.
 */
export const SHARED_READS: { table: string; file: string; why: string }[] = [];
