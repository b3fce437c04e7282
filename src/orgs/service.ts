// Creating organisations and switching their feature flags: the verbs behind `org create` and
// `org flag`, and the demo seed. An org starts with everything needed to answer a widget: an
// admin member holding every role, one active agent, a publishable widget key and an identity
// secret (encrypted at rest).
import { randomBytes } from "node:crypto";
import { type Actor, systemActor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { ROLES } from "../auth/roles.ts";
import { normaliseEmail } from "../auth/signin.ts";
import { activateAgent, createAgent } from "../agents/service.ts";
import { widgetKeys } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import { FEATURE_FLAGS, isFeatureFlag } from "../kit/flags.ts";
import { accountByEmail, insertMember } from "../tenancy/members.ts";
import { addMembership } from "../tenancy/memberships.ts";
import { insertOrg, setStoredFlag } from "../tenancy/orgs.ts";

export const WIDGET_KEY_PREFIX = "ab_live_";
/** What an email address must look like to be a member's (after normaliseEmail). */
export const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@.]{2,63}$/;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;

export function identitySecretContext(orgId: string, column: "identity_secret" | "identity_secret_previous" = "identity_secret") {
  return `orgs.${column}:${orgId}`;
}

export interface CreateOrgInput {
  name: string;
  adminEmail: string;
  adminPassword: string;
  flags?: string[];
  isDemo?: boolean;
}

export interface CreatedOrg {
  org_id: string;
  agent_id: string;
  widget_key: string;
  identity_secret: string;
  admin_email: string;
}

function unknownFlag(name: string, path: string): ErrorDetail {
  return { path, message: `unknown feature flag ${JSON.stringify(name)}; known: ${Object.keys(FEATURE_FLAGS).join(", ")}` };
}

export function validateCreateOrg(input: CreateOrgInput): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const name = input.name.trim();
  if (name.length < 1 || name.length > 200) problems.push({ path: "/name", message: "must be 1 to 200 characters" });
  if (!EMAIL.test(normaliseEmail(input.adminEmail))) problems.push({ path: "/admin_email", message: "must be an email address" });
  if (input.adminPassword.length < PASSWORD_MIN || input.adminPassword.length > PASSWORD_MAX)
    problems.push({ path: "/admin_password", message: `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters` });
  for (const [i, flag] of (input.flags ?? []).entries()) if (!isFeatureFlag(flag)) problems.push(unknownFlag(flag, `/flags/${i}`));
  return problems;
}

export async function createOrg(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "invalidation" | "now" | "passwords" | "tools">,
  input: CreateOrgInput,
): Promise<CreatedOrg> {
  const problems = validateCreateOrg(input);
  if (problems.length > 0) throw AppError.badRequest("The organisation could not be created.", problems);
  const email = normaliseEmail(input.adminEmail);
  const existing = await accountByEmail(deps.db, email);
  // An existing member becomes admin of the new org too, but only by proving their password:
  // `org create` must not be a way to take over someone's account.
  if (existing && !(await deps.passwords.verify(input.adminPassword, existing.passwordHash)))
    throw new AppError(409, "member_exists", `A member with email ${email} exists and the password given is not theirs.`);
  const passwordHash = existing ? undefined : await deps.passwords.hash(input.adminPassword);

  const orgId = crypto.randomUUID();
  const identitySecret = randomBytes(32).toString("base64url");
  const widgetKey = WIDGET_KEY_PREFIX + randomBytes(24).toString("base64url");
  const flags = Object.fromEntries((input.flags ?? []).map((f) => [f, true]));

  // The operator creates orgs (`org create`, or the demo seed at first start).
  const actor = systemActor(input.isDemo ? "demo_seed" : "cli");
  const agentId = await deps.db.transaction(async (tx) => {
    // Another `org create` for the same new email may have inserted the member since we looked:
    // then this one is refused like any other claim on an existing account, not a database error.
    const memberId = existing?.id ?? (await insertMember(tx, { email, passwordHash: passwordHash! }));
    if (!memberId) throw new AppError(409, "member_exists", `A member with email ${email} exists and the password given is not theirs.`);
    await insertOrg(tx, {
      id: orgId,
      name: input.name.trim(),
      featureFlags: flags,
      identitySecret: deps.cipher.encrypt(identitySecret, identitySecretContext(orgId)),
      isDemo: input.isDemo ?? false,
    });
    await addMembership(tx, { orgId, memberId, roles: [...ROLES] });
    await tx.insert(widgetKeys).values({ orgId, key: widgetKey });
    // The first agent through its owner (src/agents), inside this transaction: an org never exists without one.
    const inTx = { ...deps, db: tx };
    const agent = await createAgent(inTx, orgId, actor, { name: "Support agent", skills: ["answer_questions"] });
    await activateAgent(inTx, orgId, actor, agent.id);
    return agent.id;
  });
  // Its key may have been presented (and cached as unknown) before it existed.
  deps.invalidation.publish("widget_keys", orgId);
  return { org_id: orgId, agent_id: agentId, widget_key: widgetKey, identity_secret: identitySecret, admin_email: email };
}

/**
 * Switches one flag (the operator's `org flag`). Recorded in the org's activity log with its
 * previous value; the org's tool snapshot is rebuilt, since flags decide which tools exist.
 */
export async function setFeatureFlag(
  deps: Pick<Deps, "db" | "now" | "tools">,
  orgId: string,
  actor: Actor,
  flag: string,
  enabled: boolean,
): Promise<Record<string, boolean>> {
  if (!isFeatureFlag(flag)) throw AppError.badRequest("Unknown feature flag.", [unknownFlag(flag, "/name")]);
  const flags = await deps.db.transaction(async (tx) => {
    const stored = await setStoredFlag(tx, orgId, flag, enabled, deps.now());
    if (!stored) return null;
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId,
        actor,
        action: "feature_flag.changed",
        objectType: "feature_flag",
        objectId: flag,
        summary: { before: stored.before[flag] === true, after: enabled },
      },
    );
    return stored.after;
  });
  if (!flags) throw AppError.notFound(`No organisation with id ${orgId}.`);
  deps.tools.invalidate(orgId); // flags decide which tools exist
  return flags;
}
