// Invitations to an org, the admin's side (docs/decisions.md "Members and invitations"): an admin
// with `members:manage` invites an email address with a set of roles, lists the open invitations
// and revokes one. The invitee's side — opening `/invite/<token>`
// (src/orgs/invite-page.ts) and accepting — is src/orgs/invitation-accept.ts.
//
// The token is a bearer capability (`svc_inv_…`, 256 random bits): shown once to the inviting
// admin, stored only as its SHA-256 and looked up by that hash, never compared as text. A link is
// live for INVITATION_LIMITS.ttlDays, until accepted (once) or revoked. Inviting an address again
// revokes its earlier link, so there is one open invitation per address and org (a partial unique
// index holds it under concurrency). With SMTP configured the link is also emailed to the invitee
// (src/orgs/invitation-mail.ts; docs/decisions.md "Invitations are mailed").
import { and, count, desc, eq, gt, isNull } from "drizzle-orm";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { normaliseEmail } from "../auth/signin.ts";
import { mintToken, sha256Hex } from "../crypto/tokens.ts";
import { memberInvitations } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import type { WindowLimit } from "../ratelimit/leased.ts";
import { memberById, memberCardsAs } from "../tenancy/members.ts";
import { orgMemberIdByEmail } from "../tenancy/memberships.ts";
import { queueInvitationEmail } from "./invitation-mail.ts";
import { checkGrantable, lockOrg, parseRoles } from "./members.ts";
import { EMAIL } from "./service.ts";

export const INVITE_PREFIX = "svc_inv_";

export const INVITATION_LIMITS = {
  /** How long a link stays valid. */
  ttlDays: 7,
  /** Open, unexpired invitations per org: a bound on what one admin (or a stolen session) can mint. */
  openPerOrg: 50,
  email: 320,
  name: 200,
  /** Accept attempts that did not succeed, per client IP per 15 minutes (sign-in's per-IP figure). */
  acceptPerIp: { limit: 20, windowSeconds: 15 * 60 } satisfies WindowLimit,
};

export const INVITATION_PAGE = { default: 50, max: 100 };

export interface InvitationView {
  id: string;
  email: string;
  roles: string[];
  invited_by: { id: string; email: string } | null;
  created_at: string;
  expires_at: string;
  /** `expired` rows stay listed until revoked or replaced, so the admin sees the link lapsed. */
  status: "pending" | "expired";
}

export interface CreatedInvitation {
  invitation: InvitationView;
  /** The link to give the invitee: shown once, never stored. */
  invite_url: string;
  /** Whether it was also queued as an email to the invitee (SMTP configured). */
  emailed: boolean;
}

/** The inviting member, joined under its own name (members is joined twice on the invitee's side). */
export const inviter = memberCardsAs("inviter");

function viewOf(
  deps: Pick<Deps, "now">,
  row: { id: string; email: string; roles: string[]; invitedBy: string | null; inviterEmail: string | null; createdAt: Date; expiresAt: Date },
): InvitationView {
  return {
    id: row.id,
    email: row.email,
    roles: row.roles,
    invited_by: row.invitedBy && row.inviterEmail ? { id: row.invitedBy, email: row.inviterEmail } : null,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    status: row.expiresAt > deps.now() ? "pending" : "expired",
  };
}

/** Open: neither accepted nor revoked (expired ones included). */
export const open = () => and(isNull(memberInvitations.acceptedAt), isNull(memberInvitations.revokedAt));

export function inviteUrl(deps: Pick<Deps, "config">, token: string): string {
  return `${deps.config.baseUrl.replace(/\/$/, "")}/invite/${token}`;
}

/**
 * Invites `email` with `roles`. 400 for a bad address or role; 409 `already_member` when the
 * address is a member already; 409 `too_many_invitations` at INVITATION_LIMITS.openPerOrg; 403
 * `role_not_held` for a role the inviting member lacks.
 */
export async function inviteMember(
  deps: Pick<Deps, "cipher" | "config" | "db" | "now">,
  orgId: string,
  actor: Actor,
  input: { email: string; roles: readonly string[] },
): Promise<CreatedInvitation> {
  const email = normaliseEmail(input.email);
  const problems: ErrorDetail[] = [];
  if (email.length > INVITATION_LIMITS.email || !EMAIL.test(email)) problems.push({ path: "/email", message: "must be an email address" });
  let roles: string[] = [];
  try {
    roles = parseRoles(input.roles);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    problems.push(...(error.details ?? []));
  }
  if (problems.length > 0) throw AppError.badRequest("The invitation could not be made.", problems);

  const token = mintToken(INVITE_PREFIX);
  const now = deps.now();
  const emailed = Boolean(deps.config.smtpUrl);
  const row = await deps.db.transaction(async (tx) => {
    await lockOrg(tx, orgId);
    await checkGrantable(tx, orgId, actor, roles);
    if (await orgMemberIdByEmail(tx, orgId, email))
      throw new AppError(409, "already_member", `${email} is already a member of this organisation; change their roles instead.`);
    // Inviting again replaces the earlier link (one open invitation per address).
    const replaced = await tx
      .update(memberInvitations)
      .set({ revokedAt: now })
      .where(and(eq(memberInvitations.orgId, orgId), eq(memberInvitations.email, email), open()))
      .returning({ id: memberInvitations.id });
    const [live] = await tx
      .select({ n: count() })
      .from(memberInvitations)
      .where(and(eq(memberInvitations.orgId, orgId), open(), gt(memberInvitations.expiresAt, now)));
    if ((live?.n ?? 0) >= INVITATION_LIMITS.openPerOrg)
      throw new AppError(
        409,
        "too_many_invitations",
        `This organisation has ${INVITATION_LIMITS.openPerOrg} open invitations, the most it may have; revoke some first.`,
      );
    const invitedBy = actor.kind === "member" || actor.kind === "token" ? actor.memberId : null;
    const [inserted] = await tx
      .insert(memberInvitations)
      .values({
        orgId,
        email,
        roles,
        tokenHash: sha256Hex(token),
        invitedBy,
        createdAt: now,
        expiresAt: new Date(now.getTime() + INVITATION_LIMITS.ttlDays * 86_400_000),
      })
      .returning();
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId,
        actor,
        action: "member_invitation.created",
        objectType: "member_invitation",
        objectId: inserted!.id,
        summary: { email, roles, ...(replaced.length > 0 ? { replaced: replaced.map((r) => r.id) } : {}) },
      },
    );
    // The email carries the same link; queued with the invitation, so both exist or neither.
    if (emailed) await queueInvitationEmail(tx, deps, { orgId, invitationId: inserted!.id, token, now });
    const by = invitedBy ? await memberById(tx, invitedBy) : null;
    return { ...inserted!, inviterEmail: by?.email ?? null };
  });
  return { invitation: viewOf(deps, row), invite_url: inviteUrl(deps, token), emailed };
}

/** One page of the org's open invitations (pending and expired), newest first. */
export async function listInvitations(
  deps: Pick<Deps, "db" | "now">,
  orgId: string,
  options: { page?: number; perPage?: number } = {},
): Promise<{ invitations: InvitationView[]; page: number; per_page: number; total: number }> {
  const perPage = Math.min(Math.max(options.perPage ?? INVITATION_PAGE.default, 1), INVITATION_PAGE.max);
  const page = Math.max(options.page ?? 1, 1);
  const where = and(eq(memberInvitations.orgId, orgId), open());
  const [rows, [total]] = await Promise.all([
    deps.db
      .select({
        id: memberInvitations.id,
        email: memberInvitations.email,
        roles: memberInvitations.roles,
        invitedBy: memberInvitations.invitedBy,
        inviterEmail: inviter.email,
        createdAt: memberInvitations.createdAt,
        expiresAt: memberInvitations.expiresAt,
      })
      .from(memberInvitations)
      .leftJoin(inviter, eq(inviter.id, memberInvitations.invitedBy))
      .where(where)
      .orderBy(desc(memberInvitations.createdAt), desc(memberInvitations.id))
      .limit(perPage)
      .offset((page - 1) * perPage),
    deps.db.select({ n: count() }).from(memberInvitations).where(where),
  ]);
  return { invitations: rows.map((r) => viewOf(deps, r)), page, per_page: perPage, total: total?.n ?? 0 };
}

/** Revokes an open invitation of this org: its link stops working. 404 for anything else. */
export async function revokeInvitation(deps: Pick<Deps, "db" | "now">, orgId: string, actor: Actor, invitationId: string): Promise<void> {
  if (!isUuid(invitationId)) throw AppError.notFound("No such invitation.");
  await deps.db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(memberInvitations)
      .set({ revokedAt: deps.now() })
      .where(and(eq(memberInvitations.id, invitationId), eq(memberInvitations.orgId, orgId), open()))
      .returning({ email: memberInvitations.email });
    if (!revoked) throw AppError.notFound("No such invitation.");
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId,
        actor,
        action: "member_invitation.revoked",
        objectType: "member_invitation",
        objectId: invitationId,
        summary: { email: revoked.email },
      },
    );
  });
}
