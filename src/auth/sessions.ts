// Dashboard sessions: an opaque `svc_ses_…` token handed to the browser (cookie) or to an API
// client (bearer). Only its SHA-256 is stored; lookups return null on any failure and the HTTP
// layer decides the status.
import { and, desc, eq, gt, lt, ne } from "drizzle-orm";
import { mintToken, sha256Hex } from "../crypto/tokens.ts";
import { dashboardSessions } from "../db/schema/index.ts";
import { memberCards } from "../tenancy/members.ts";
import { orgsOfMember } from "../tenancy/memberships.ts";
import type { Deps } from "../deps.ts";

export const SESSION_PREFIX = "svc_ses_";
export const SESSION_COOKIE = "svc_session";
/** The org a member last chose in the dashboard (a member may belong to several); also set when an invitation is accepted. */
export const ORG_COOKIE = "svc_org";

export interface Principal {
  sessionId: string;
  member: { id: string; email: string; name: string };
  memberships: { orgId: string; orgName: string; roles: string[] }[];
}

export async function createSession(deps: Pick<Deps, "config" | "db" | "now">, memberId: string): Promise<{ token: string; expiresAt: Date }> {
  const token = mintToken(SESSION_PREFIX);
  const expiresAt = new Date(deps.now().getTime() + deps.config.sessionTtlHours * 3600_000);
  await deps.db.insert(dashboardSessions).values({ tokenHash: sha256Hex(token), memberId, expiresAt });
  return { token, expiresAt };
}

export async function resolveSession(deps: Pick<Deps, "db" | "now">, token: string): Promise<Principal | null> {
  if (!token.startsWith(SESSION_PREFIX) || token.length > 128) return null;
  const [row] = await deps.db
    .select({ sessionId: dashboardSessions.id, id: memberCards.id, email: memberCards.email, name: memberCards.name })
    .from(dashboardSessions)
    .innerJoin(memberCards, eq(memberCards.id, dashboardSessions.memberId))
    .where(and(eq(dashboardSessions.tokenHash, sha256Hex(token)), gt(dashboardSessions.expiresAt, deps.now())));
  if (!row) return null;
  const rows = await orgsOfMember(deps.db, row.id);
  return { sessionId: row.sessionId, member: { id: row.id, email: row.email, name: row.name }, memberships: rows };
}

export async function deleteSession(deps: Pick<Deps, "db">, sessionId: string): Promise<void> {
  await deps.db.delete(dashboardSessions).where(eq(dashboardSessions.id, sessionId));
}

/** Ends every session of a member (they were removed from their last org): the next request is signed out. */
export async function deleteMemberSessions(deps: Pick<Deps, "db">, memberId: string): Promise<number> {
  const gone = await deps.db.delete(dashboardSessions).where(eq(dashboardSessions.memberId, memberId)).returning({ id: dashboardSessions.id });
  return gone.length;
}

export async function deleteExpiredSessions(deps: Pick<Deps, "db" | "now">): Promise<void> {
  await deps.db.delete(dashboardSessions).where(lt(dashboardSessions.expiresAt, deps.now()));
}

/** A member's live sessions, newest first (never their tokens). */
export async function listMemberSessions(deps: Pick<Deps, "db" | "now">, memberId: string): Promise<{ id: string; createdAt: Date; expiresAt: Date }[]> {
  return deps.db
    .select({ id: dashboardSessions.id, createdAt: dashboardSessions.createdAt, expiresAt: dashboardSessions.expiresAt })
    .from(dashboardSessions)
    .where(and(eq(dashboardSessions.memberId, memberId), gt(dashboardSessions.expiresAt, deps.now())))
    .orderBy(desc(dashboardSessions.createdAt), desc(dashboardSessions.id));
}

/** Ends every session of a member but `keep` (the one asking): "sign out everywhere else", and after a password change. */
export async function deleteOtherSessions(deps: Pick<Deps, "db">, memberId: string, keep: string): Promise<number> {
  const gone = await deps.db
    .delete(dashboardSessions)
    .where(and(eq(dashboardSessions.memberId, memberId), ne(dashboardSessions.id, keep)))
    .returning({ id: dashboardSessions.id });
  return gone.length;
}
