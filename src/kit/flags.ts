// The catalogue of feature flags. Per org they are stored in orgs.feature_flags, read through
// src/tenancy/flags.ts and switched by src/orgs/service.ts. Unknown names are rejected everywhere
// so a typo does not pass silently.

/** Every feature flag the service knows, with what it switches on. */
export const FEATURE_FLAGS = {
  mcp_external_servers: "Connect third-party MCP servers and use their tools as agent actions.",
  mcp_destructive_tools: "Let MCP clients call tools marked destructive (with a token holding the matching write scope).",
} as const;
export type FeatureFlag = keyof typeof FEATURE_FLAGS;

export function isFeatureFlag(name: string): name is FeatureFlag {
  return Object.hasOwn(FEATURE_FLAGS, name);
}
