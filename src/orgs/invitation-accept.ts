// Invitations to an org, the invitee's side: finding the invitation a link names and accepting it
// — setting a name and password (no account yet) or signing in with theirs (account exists) — to
// become a member with the invited roles. The admin's side (invite, list, revoke) and the token's
// rules are in src/orgs/invitations.ts; the page is src/orgs/invite-page.ts.
//
// Accepting is rate-limited like sign-in: every attempt takes a slot per client IP before anything
// is checked (unknown tokens included) and a successful one gives it back; the existing-account
// path also goes through checkPassword's own per-account and per-IP limits.
import { and, eq, gt } from "drizzle-orm";
import { memberActor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { checkPassword } from "../auth/signin.ts";
import { sha256Hex } from "../crypto/tokens.ts";
import { memberInvitations } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import { memberByEmail, insertMember } from "../tenancy/members.ts";
import { addMembership } from "../tenancy/memberships.ts";
import { orgNames } from "../tenancy/orgs.ts";
import { INVITATION_LIMITS, INVITE_PREFIX, inviter, open } from "./invitations.ts";
import { PASSWORD_MAX, PASSWORD_MIN } from "./service.ts";

export type InvitationState = "pending" | "expired" | "revoked" | "accepted";

export interface InvitationLookup {
  id: string;
  orgId: string;
  orgName: string;
  email: string;
  roles: string[];
  inviterEmail: string | null;
  state: InvitationState;
  /** Whether an account with this email exists (the page asks for a password, not a new account). */
  accountExists: boolean;
}

/** The invitation a link names, found by the token's SHA-256; null for anything unknown. */
export async function findInvitation(deps: Pick<Deps, "db" | "now">, token: string): Promise<InvitationLookup | null> {
  if (!token.startsWith(INVITE_PREFIX) || token.length > 128) return null;
  const [row] = await deps.db
    .select({ inv: memberInvitations, orgName: orgNames.name, inviterEmail: inviter.email })
    .from(memberInvitations)
    .innerJoin(orgNames, eq(orgNames.id, memberInvitations.orgId))
    .leftJoin(inviter, eq(inviter.id, memberInvitations.invitedBy))
    .where(eq(memberInvitations.tokenHash, sha256Hex(token)));
  if (!row) return null;
  const { inv } = row;
  const state: InvitationState = inv.acceptedAt ? "accepted" : inv.revokedAt ? "revoked" : inv.expiresAt <= deps.now() ? "expired" : "pending";
  const account = await memberByEmail(deps.db, inv.email);
  return {
    id: inv.id,
    orgId: inv.orgId,
    orgName: row.orgName,
    email: inv.email,
    roles: inv.roles,
    inviterEmail: row.inviterEmail,
    state,
    accountExists: Boolean(account),
  };
}

/** Why a link does not work, in words for the invitee; 404 unknown, 410 for a link that was real. */
export function invitationGone(state: InvitationState | "unknown"): AppError {
  switch (state) {
    case "unknown":
      return new AppError(404, "invitation_unknown", "This invitation link is not valid. Check that you copied all of it, or ask for a new invitation.");
    case "expired":
      return new AppError(
        410,
        "invitation_expired",
        `This invitation has expired (links last ${INVITATION_LIMITS.ttlDays} days). Ask an admin of the organisation for a new one.`,
      );
    case "revoked":
      return new AppError(410, "invitation_revoked", "This invitation was withdrawn. Ask an admin of the organisation for a new one.");
    case "accepted":
      return new AppError(410, "invitation_used", "This invitation has already been used. Sign in to reach the organisation.");
    case "pending":
      throw new Error("a pending invitation is not gone");
  }
}

export interface AcceptInput {
  /** Required when no account exists for the invitation's email. */
  name?: string;
  password: string;
  ip: string;
}

/**
 * Accepts the invitation `token`: creates the account (name and password, when none exists for
 * the email) or checks the existing account's password, then the membership with the invited
 * roles. Returns the member to sign in. Throws 404/410 for a link that does not work, 400 with
 * field details (`/name`, `/password`), 401 for a wrong password, 429 when rate-limited.
 */
export async function acceptInvitation(
  deps: Pick<Deps, "db" | "limiter" | "now" | "passwords" | "tools">,
  token: string,
  input: AcceptInput,
): Promise<{ memberId: string; orgId: string; orgName: string }> {
  const now = deps.now();
  const ipKey = { key: `invite:ip:${input.ip}`, limit: INVITATION_LIMITS.acceptPerIp };
  const taken = await deps.limiter.take(ipKey.key, ipKey.limit, now);
  if (!taken.allowed) throw AppError.tooManyRequests(taken.retryAfter, "Too many attempts to accept invitations from this address. Try again later.");

  const found = await findInvitation(deps, token);
  if (!found) throw invitationGone("unknown");
  if (found.state !== "pending") throw invitationGone(found.state);

  let memberId: string | undefined;
  let passwordHash: string | undefined;
  const name = (input.name ?? "").trim();
  if (found.accountExists) {
    // Their own password, through sign-in's checks and limits (the same work for a wrong password).
    memberId = (await checkPassword(deps, { email: found.email, password: input.password, ip: input.ip })).id;
  } else {
    const problems: ErrorDetail[] = [];
    if (name.length < 1 || name.length > INVITATION_LIMITS.name)
      problems.push({ path: "/name", message: `Enter your name (1 to ${INVITATION_LIMITS.name} characters).` });
    if (input.password.length < PASSWORD_MIN || input.password.length > PASSWORD_MAX)
      problems.push({ path: "/password", message: `Choose a password of ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.` });
    if (problems.length > 0) throw AppError.badRequest("The account could not be created.", problems);
    passwordHash = await deps.passwords.hash(input.password);
  }

  const joined = await deps.db.transaction(async (tx) => {
    // Still open and unexpired, under the row's lock: two tabs posting at once accept it once.
    const [inv] = await tx
      .select()
      .from(memberInvitations)
      .where(and(eq(memberInvitations.id, found.id), open(), gt(memberInvitations.expiresAt, deps.now())))
      .for("update");
    if (!inv) {
      const again = await findInvitation({ db: tx, now: deps.now }, token);
      throw invitationGone(again && again.state !== "pending" ? again.state : "accepted");
    }
    let newAccount = false;
    if (!memberId) {
      const created = await insertMember(tx, { email: inv.email, name, passwordHash: passwordHash! });
      if (!created)
        throw new AppError(
          409,
          "account_exists",
          "An account with this email was created in the meantime. Open the link again and sign in with that account's password.",
        );
      memberId = created;
      newAccount = true;
    }
    // A member already (an earlier invitation, accepted in another tab): their roles stay as they are.
    await addMembership(tx, { orgId: inv.orgId, memberId, roles: inv.roles });
    await tx.update(memberInvitations).set({ acceptedAt: deps.now(), acceptedBy: memberId }).where(eq(memberInvitations.id, inv.id));
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId: inv.orgId,
        actor: memberActor(memberId),
        action: "member_invitation.accepted",
        objectType: "member_invitation",
        objectId: inv.id,
        summary: { member_id: memberId, email: inv.email, roles: inv.roles, new_account: newAccount },
      },
    );
    return { memberId, orgId: inv.orgId };
  });
  await deps.limiter.refund(ipKey.key, ipKey.limit, now);
  // A new member's roles enter the org's tool snapshot (what their future tokens may do).
  deps.tools.invalidate(joined.orgId);
  return { ...joined, orgName: found.orgName };
}
