// The scopes a tool-server token can carry: one read and one write scope per tool family
// (docs/interface.md 2.3), published in both discovery documents and shown in plain words on the
// consent page. A client that asks for no scope gets the read-only default.
import type { Role } from "../auth/roles.ts";
export const SCOPES = {
  "docs:read": "Search and read your knowledge base",
  "data:read": "Read customer and company records",
  "data:write": "Update customer and company records",
  "inbox:read": "Read support tickets and conversations",
  "inbox:write": "Reply to, note, triage and send outreach on tickets",
  "automation:read": "See campaigns and automations",
  "automation:write": "Create, edit, preview and activate campaigns",
  "setup:read": "See how your agents and workspace are set up",
  "setup:write": "Change how your agents and workspace are set up",
  "actions:read": "Run read-only actions of your connected integrations",
  "actions:write": "Run actions of your connected integrations that change data there",
} as const;

export type Scope = keyof typeof SCOPES;

/**
 * The dashboard role a member must hold for a token they authorised to use a scope's tools. A
 * scope is what the member let the client do; the role is what the member may do at all, and is
 * checked on every call (src/tools/registry.ts `denial`), so a token never does more than the
 * member who granted it could do in the dashboard.
 */
export const SCOPE_ROLES: Record<Scope, Role> = {
  "docs:read": "knowledge:view",
  "data:read": "inbox:view",
  "data:write": "inbox:manage",
  "inbox:read": "inbox:view",
  "inbox:write": "inbox:manage",
  "automation:read": "automation:view",
  "automation:write": "automation:manage",
  "setup:read": "agents:view",
  "setup:write": "agents:manage",
  "actions:read": "integrations:view",
  "actions:write": "integrations:manage",
};

export const SCOPES_SUPPORTED = Object.keys(SCOPES) as Scope[];

/** Granted when a client requests no scope: everything read-only. */
export const DEFAULT_SCOPES: Scope[] = SCOPES_SUPPORTED.filter((s) => s.endsWith(":read"));

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/**
 * Parses a space-delimited `scope` (RFC 6749 section 3.3). Returns the scopes in canonical order, or
 * the first unknown one. An absent or empty scope means the default.
 */
export function parseScope(raw: string | undefined): { scopes: Scope[] } | { unknown: string } {
  const parts = (raw ?? "").split(" ").filter((p) => p !== "");
  if (parts.length === 0) return { scopes: [...DEFAULT_SCOPES] };
  for (const part of parts) if (!isScope(part)) return { unknown: part };
  return { scopes: SCOPES_SUPPORTED.filter((s) => parts.includes(s)) };
}

export function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s) => b.includes(s));
}
