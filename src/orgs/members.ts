// The members of an org and their roles (settings): list them, change a member's roles,
// remove a member. Routes check `members:manage` (src/auth/guard.ts, the dashboard's withMember);
// the functions here keep the org's invariants whoever calls them:
//
// - an org always keeps at least one member holding both `org:manage` and `members:manage`
//   (ADMIN_ROLES): a change or removal that would leave none is refused with 409 `last_admin`,
//   whether it targets someone else or the member acting (who cannot demote or remove themselves
//   past it either);
// - a member grants only roles they hold themselves: `members:manage` alone does not make someone
//   an `org:manage` admin by handing the role to a friend (403 `role_not_held`);
// - everything is scoped by orgId: another org's member id answers 404, as if it did not exist.
//
// Changes run under the org row's lock, so two admins demoting each other at the same moment
// cannot both pass the "another admin remains" check. After a change the org's tool snapshot is
// dropped here and, through NOTIFY, in every instance (`deps.tools.invalidate`): OAuth tokens are
// held to their member's roles through that snapshot (src/tools/registry.ts memberRoles,
// src/oauth/scopes.ts SCOPE_ROLES), so the very next call sees the new roles. A removal also
// revokes the member's OAuth grants for the org and, when no org is left to them, ends their
// dashboard sessions; a session of a member who still belongs elsewhere stays, and no longer
// reaches this org (sessions read the memberships on every request).
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { ROLES, type Role } from "../auth/roles.ts";
import { deleteMemberSessions } from "../auth/sessions.ts";
import type { Conn } from "../db/client.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { lockOrg as lockOrgRow } from "../tenancy/orgs.ts";
import {
  memberRoles,
  membershipCount,
  type OrgMember,
  orgMember,
  orgMembersPage,
  othersHolding,
  removeMembership,
  setMembershipRoles,
} from "../tenancy/memberships.ts";
import { listGrants, revokeGrant } from "../oauth/grants.ts";

/** An org must keep at least one member holding both of these. */
export const ADMIN_ROLES = ["org:manage", "members:manage"] as const satisfies readonly Role[];

export const MEMBER_PAGE = { default: 50, max: 100 };

/** What each role lets a member do, in words for the dashboard's role checkboxes. */
export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  "org:manage": "Settings, widget keys, identity verification, webhooks",
  "members:manage": "Invite and remove members, change roles",
  "agents:manage": "Edit agents and their actions",
  "agents:view": "See agents",
  "integrations:manage": "Connect connectors and custom actions",
  "integrations:view": "See connectors and custom actions",
  "knowledge:manage": "Edit the knowledge base",
  "knowledge:view": "Read the knowledge base",
  "inbox:manage": "Answer tickets, edit customers",
  "inbox:view": "Read tickets, conversations, customers",
  "automation:manage": "Create and run email series",
  "automation:view": "See email series",
};

export interface MemberView {
  id: string;
  email: string;
  name: string;
  roles: string[];
  joined_at: string;
}

/**
 * A set of roles as given (API body or form checkboxes): at least one, each a name of ROLES.
 * Returned in ROLES' order without duplicates. Throws 400 naming each unknown role.
 */
export function parseRoles(raw: readonly string[], path = "/roles"): Role[] {
  const problems: ErrorDetail[] = [];
  raw.forEach((role, i) => {
    if (!(ROLES as readonly string[]).includes(role))
      problems.push({ path: `${path}/${i}`, message: `unknown role ${JSON.stringify(role.slice(0, 64))}; known: ${ROLES.join(", ")}` });
  });
  if (raw.length === 0) problems.push({ path, message: "choose at least one role" });
  if (problems.length > 0) throw AppError.badRequest("The roles are not valid.", problems);
  return ROLES.filter((r) => raw.includes(r));
}

export function isAdmin(roles: readonly string[]): boolean {
  return ADMIN_ROLES.every((r) => roles.includes(r));
}

function lastAdmin(self: boolean): AppError {
  return new AppError(
    409,
    "last_admin",
    self
      ? `You are the only member holding both ${ADMIN_ROLES.join(" and ")}: give both to another member before you drop them or leave.`
      : `This member is the only one holding both ${ADMIN_ROLES.join(" and ")}: an organisation must keep at least one. Give both to another member first.`,
  );
}

/** Locks the org row for the rest of the transaction (membership changes of one org run one at a time). */
export async function lockOrg(tx: Conn, orgId: string): Promise<void> {
  if (!(await lockOrgRow(tx, orgId))) throw AppError.notFound("No such organisation.");
}

/** Members of the org holding both admin roles, other than `except`. */
async function otherAdmins(tx: Conn, orgId: string, except: string): Promise<number> {
  return othersHolding(tx, orgId, except, ADMIN_ROLES);
}

/**
 * Refuses roles the acting member does not hold (403). A system actor (the CLI) is not limited.
 * `granted` are the roles being added, not the whole set.
 */
export async function checkGrantable(tx: Conn, orgId: string, actor: Actor, granted: readonly string[]): Promise<void> {
  if (actor.kind !== "member" && actor.kind !== "token") return;
  if (granted.length === 0) return;
  const mine = await memberRoles(tx, orgId, actor.memberId);
  if (!mine) throw AppError.forbidden("You are not a member of that organisation.");
  const missing = granted.filter((r) => !mine.includes(r));
  if (missing.length > 0) throw new AppError(403, "role_not_held", `You can grant only roles you hold yourself; you lack ${missing.join(", ")}.`);
}

function view(row: OrgMember): MemberView {
  return { id: row.id, email: row.email, name: row.name, roles: row.roles, joined_at: row.joinedAt.toISOString() };
}

/** One page of the org's members, by email. `page` is 1-based. */
export async function listMembers(
  deps: Pick<Deps, "db">,
  orgId: string,
  options: { page?: number; perPage?: number } = {},
): Promise<{ members: MemberView[]; page: number; per_page: number; total: number }> {
  const perPage = Math.min(Math.max(options.perPage ?? MEMBER_PAGE.default, 1), MEMBER_PAGE.max);
  const page = Math.max(options.page ?? 1, 1);
  const { rows, total } = await orgMembersPage(deps.db, orgId, perPage, (page - 1) * perPage);
  return { members: rows.map(view), page, per_page: perPage, total };
}

async function memberOf(tx: Conn, orgId: string, memberId: string, lock = false) {
  if (!isUuid(memberId)) return undefined;
  return orgMember(tx, orgId, memberId, lock);
}

/** Replaces a member's roles. 404 for anyone not in this org; 409 `last_admin`; 403 `role_not_held`. */
export async function changeMemberRoles(
  deps: Pick<Deps, "db" | "now" | "tools">,
  orgId: string,
  actor: Actor,
  memberId: string,
  rawRoles: readonly string[],
): Promise<MemberView> {
  const roles = parseRoles(rawRoles);
  const result = await deps.db.transaction(async (tx) => {
    await lockOrg(tx, orgId);
    const target = await memberOf(tx, orgId, memberId, true);
    if (!target) throw AppError.notFound("No such member in this organisation.");
    const before = target.roles;
    await checkGrantable(
      tx,
      orgId,
      actor,
      roles.filter((r) => !before.includes(r)),
    );
    if (isAdmin(before) && !isAdmin(roles) && (await otherAdmins(tx, orgId, memberId)) === 0) throw lastAdmin(actorIs(actor, memberId));
    const same = before.length === roles.length && roles.every((r) => before.includes(r));
    if (same) return { member: view(target), changed: false };
    await setMembershipRoles(tx, orgId, memberId, roles);
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId,
        actor,
        action: "member.roles_changed",
        objectType: "member",
        objectId: memberId,
        summary: { email: target.email, before, after: roles },
      },
    );
    return { member: view({ ...target, roles }), changed: true };
  });
  // Tokens are held to the member's roles through the org's tool snapshot: the next call, here or
  // on another instance, must see the new ones.
  if (result.changed) deps.tools.invalidate(orgId);
  return result.member;
}

function actorIs(actor: Actor, memberId: string): boolean {
  return (actor.kind === "member" || actor.kind === "token") && actor.memberId === memberId;
}

export interface Removal {
  member_id: string;
  /** OAuth grants of the member for this org, revoked with their tokens. */
  grants_revoked: number;
  /** Dashboard sessions ended (only when no org is left to the member). */
  sessions_ended: number;
}

/** Removes a member from the org. 404 for anyone not in this org; 409 `last_admin`. */
export async function removeMember(deps: Pick<Deps, "accessTokens" | "db" | "now" | "tools">, orgId: string, actor: Actor, memberId: string): Promise<Removal> {
  await deps.db.transaction(async (tx) => {
    await lockOrg(tx, orgId);
    const target = await memberOf(tx, orgId, memberId, true);
    if (!target) throw AppError.notFound("No such member in this organisation.");
    if (isAdmin(target.roles) && (await otherAdmins(tx, orgId, memberId)) === 0) throw lastAdmin(actorIs(actor, memberId));
    await removeMembership(tx, orgId, memberId);
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId,
        actor,
        action: "member.removed",
        objectType: "member",
        objectId: memberId,
        summary: { email: target.email, roles: target.roles },
      },
    );
  });
  // After the commit: a token of theirs verified from now on finds no membership (src/oauth/verify.ts),
  // and the grants end for good, each recorded with its reason.
  const { grants } = await listGrants(deps, orgId, memberId, false);
  for (const grant of grants) await revokeGrant(deps, grant.id, actor, "member_left_org");
  deps.accessTokens.invalidate();
  deps.tools.invalidate(orgId);
  const sessionsEnded = (await membershipCount(deps.db, memberId)) === 0 ? await deleteMemberSessions(deps, memberId) : 0;
  return { member_id: memberId, grants_revoked: grants.length, sessions_ended: sessionsEnded };
}
