// Double opt-in for email series (README "Email series by email: double opt-in"). The public
// widget key may ask for an address to join a series, but only the address's owner starts it:
//
//   request   POST /api/sdk/series {action: "enroll", email} (identity verification off). When no
//             verified customer holds the address, one row here and one confirmation email in the
//             durable outbox, in one transaction. When a verified customer holds it, nothing at
//             all: they join with their user_token. Either way the same 202 (src/campaigns/sdk-routes.ts).
//   limits    per address (of the org) and per widget key + client IP, charged for every such
//             request, whoever the address belongs to, so a 429 tells nothing about the address.
//   confirm   GET /series/confirm/TOKEN shows a page with a button (mail scanners prefetch links,
//             as for RFC 8058 unsubscribe links); its POST enrols the address's customer and the
//             sender queues step 1 like any enrolment's.
//   expiry    an unconfirmed request expires OPT_IN.expirySeconds after it was made: its link stops
//             working, its mail is not sent if still queued, and the sender deletes the row.
import { and, asc, desc, eq, gt, isNotNull, isNull, lte } from "drizzle-orm";
import { campaignOptIns, campaigns } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { mintToken, sha256Hex } from "../crypto/tokens.ts";
import { enqueue } from "../outbox/outbox.ts";
import { endUserById } from "../customers/lookups.ts";
import { createVisitor, type EndUser, findEndUserByEmail } from "../customers/records.ts";
import { enrolCustomer, isUnsubscribed } from "./enrolments.ts";
import { type Campaign } from "./model.ts";
import { orgNames } from "../tenancy/orgs.ts";

export const OPT_IN = {
  /** How long a confirmation link works. */
  expirySeconds: 48 * 3600,
  /** Requests per address of an org, per UTC day (fixed window). */
  perAddress: { limit: 3, windowSeconds: 86_400 },
  /** Requests per widget key and client IP, per clock hour (fixed window). */
  perKeyIp: { limit: 10, windowSeconds: 3600 },
} as const;

/** The outbox kind of a confirmation email (src/mail/opt-in-mail.ts delivers it). */
export const OPT_IN_MAIL_KIND = "campaign.opt_in";

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const sealContext = (optInId: string) => `campaign_opt_ins.token_sealed:${optInId}`;

export type OptIn = typeof campaignOptIns.$inferSelect;

/** The link mailed for a request. */
export function confirmationUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/series/confirm/${token}`;
}

/**
 * Charges one request by email against both limits, before the address is looked up; 429
 * `rate_limited` with Retry-After past either. The address is counted by its SHA-256, so the
 * counters table holds no address.
 */
export async function limitOptInRequest(
  deps: Pick<Deps, "limiter" | "now">,
  input: { orgId: string; keyId: string; ip: string; email: string },
): Promise<void> {
  const now = deps.now();
  const byKeyIp = await deps.limiter.take(`series-opt-in:key-ip:${input.keyId}:${input.ip}`, OPT_IN.perKeyIp, now);
  if (!byKeyIp.allowed)
    throw AppError.tooManyRequests(
      byKeyIp.retryAfter,
      `Too many series requests by email from this address: at most ${OPT_IN.perKeyIp.limit} an hour. Try again in ${byKeyIp.retryAfter} s.`,
    );
  const byAddress = await deps.limiter.take(`series-opt-in:address:${input.orgId}:${sha256Hex(input.email.trim().toLowerCase())}`, OPT_IN.perAddress, now);
  if (!byAddress.allowed)
    throw AppError.tooManyRequests(
      byAddress.retryAfter,
      `Too many series requests for this email address: at most ${OPT_IN.perAddress.limit} a day. Try again in ${byAddress.retryAfter} s.`,
    );
}

/**
 * An enrolment asked for by email alone. A verified customer's address is left alone (they prove
 * who they are with a user_token; nobody else may enrol them); any other address gets one
 * confirmation request and its email. Returns nothing: the caller answers the same either way.
 */
export async function requestByEmail(deps: Pick<Deps, "cipher" | "db" | "now">, input: { orgId: string; campaign: Campaign; email: string }): Promise<void> {
  const email = input.email.trim().toLowerCase();
  if ((await findEndUserByEmail(deps, input.orgId, email))?.verified) return;
  // Someone who confirmed an address and then unsubscribed left every series of the org: no
  // request through the public key mails them again, not even to ask.
  const earlier = await earlierSubscriber(deps, input.orgId, email);
  if (earlier && (await isUnsubscribed(deps, input.orgId, earlier.id))) return;
  const now = deps.now();
  const token = mintToken("");
  const id = crypto.randomUUID();
  await deps.db.transaction(async (tx) => {
    await tx.insert(campaignOptIns).values({
      id,
      orgId: input.orgId,
      campaignId: input.campaign.id,
      email,
      tokenHash: sha256Hex(token),
      tokenSealed: deps.cipher.encrypt(token, sealContext(id)),
      requestedAt: now,
      expiresAt: new Date(now.getTime() + OPT_IN.expirySeconds * 1000),
    });
    await enqueue(tx, { orgId: input.orgId, kind: OPT_IN_MAIL_KIND, payload: { opt_in_id: id }, runAt: now, now });
  });
}

export interface OptInView {
  optIn: OptIn;
  campaign: Campaign;
  orgName: string;
}

/** The request a link's token names, if it exists and has not expired (confirmed ones included). */
export async function optInByToken(deps: Pick<Deps, "db" | "now">, token: string): Promise<OptInView | null> {
  if (!TOKEN.test(token)) return null;
  const [row] = await deps.db
    .select({ optIn: campaignOptIns, campaign: campaigns, orgName: orgNames.name })
    .from(campaignOptIns)
    .innerJoin(campaigns, eq(campaigns.id, campaignOptIns.campaignId))
    .innerJoin(orgNames, eq(orgNames.id, campaignOptIns.orgId))
    .where(eq(campaignOptIns.tokenHash, sha256Hex(token)));
  if (!row || (!row.optIn.confirmedAt && row.optIn.expiresAt.getTime() <= deps.now().getTime())) return null;
  return row;
}

export type Confirmation = OptInView & { outcome: "enrolled" | "already_confirmed" | "not_active" | "unsubscribed" };

/**
 * The POST of a confirmation link: enrols the address's customer (a verified customer holding it
 * by now, else the customer an earlier confirmation of this address made, else a new customer
 * with just the address), once — a second POST finds it confirmed. A series that is not active
 * (paused meanwhile) confirms nothing; the link works again once it is, until it expires.
 */
export async function confirmOptIn(deps: Pick<Deps, "db" | "now">, token: string): Promise<Confirmation | null> {
  const found = await optInByToken(deps, token);
  if (!found) return null;
  if (found.optIn.confirmedAt) return { ...found, outcome: "already_confirmed" };
  if (found.campaign.status !== "active") return { ...found, outcome: "not_active" };
  return deps.db.transaction(async (tx) => {
    const inTx = { ...deps, db: tx };
    const now = deps.now();
    const [claimed] = await tx
      .update(campaignOptIns)
      .set({ confirmedAt: now, tokenSealed: null })
      .where(and(eq(campaignOptIns.id, found.optIn.id), isNull(campaignOptIns.confirmedAt), gt(campaignOptIns.expiresAt, now)))
      .returning();
    if (!claimed) return { ...found, outcome: "already_confirmed" as const };
    const customer = await subscriberFor(inTx, found.optIn.orgId, found.optIn.email);
    const { enrolment } = await enrolCustomer(inTx, {
      orgId: found.optIn.orgId,
      actor: { kind: "customer", endUserId: customer.id, sessionId: "opt-in-link" },
      campaign: found.campaign,
      endUser: customer,
      source: "opt-in",
      addressConfirmed: true,
    });
    await tx.update(campaignOptIns).set({ endUserId: customer.id }).where(eq(campaignOptIns.id, claimed.id));
    return {
      ...found,
      optIn: { ...claimed, endUserId: customer.id },
      outcome: enrolment.state === "unsubscribed" ? ("unsubscribed" as const) : ("enrolled" as const),
    };
  });
}

/** Whom a confirmed address enrols (see confirmOptIn). A new customer gets the address only: nothing a requester typed. */
async function subscriberFor(deps: Pick<Deps, "db" | "now">, orgId: string, email: string): Promise<EndUser> {
  const known = await findEndUserByEmail(deps, orgId, email);
  if (known?.verified) return known;
  return (await earlierSubscriber(deps, orgId, email)) ?? createVisitor(deps, orgId, { email });
}

/** The customer an earlier confirmation of this address enrolled, if it still exists (deleting a customer clears the link). */
async function earlierSubscriber(deps: Pick<Deps, "db">, orgId: string, email: string): Promise<EndUser | null> {
  const [earlier] = await deps.db
    .select({ endUserId: campaignOptIns.endUserId })
    .from(campaignOptIns)
    .where(and(eq(campaignOptIns.orgId, orgId), eq(campaignOptIns.email, email), isNotNull(campaignOptIns.confirmedAt), isNotNull(campaignOptIns.endUserId)))
    .orderBy(asc(campaignOptIns.confirmedAt))
    .limit(1);
  return earlier?.endUserId ? endUserById(deps.db, orgId, earlier.endUserId) : null;
}

/** What a confirmation email needs, or why it is no longer wanted. */
export async function optInMail(deps: Pick<Deps, "db" | "now" | "cipher" | "config">, orgId: string, optInId: string) {
  const [row] = await deps.db
    .select({ optIn: campaignOptIns, campaign: campaigns, orgName: orgNames.name })
    .from(campaignOptIns)
    .innerJoin(campaigns, eq(campaigns.id, campaignOptIns.campaignId))
    .innerJoin(orgNames, eq(orgNames.id, campaignOptIns.orgId))
    .where(and(eq(campaignOptIns.orgId, orgId), eq(campaignOptIns.id, optInId)));
  if (!row || row.optIn.expiresAt.getTime() <= deps.now().getTime()) return { cancel: "confirmation request expired" } as const;
  if (row.optIn.confirmedAt || !row.optIn.tokenSealed) return { cancel: "already confirmed" } as const;
  if (row.campaign.status === "archived") return { cancel: "campaign archived" } as const;
  const url = confirmationUrl(deps.config.baseUrl, deps.cipher.decrypt(row.optIn.tokenSealed, sealContext(row.optIn.id)));
  return { to: row.optIn.email, url, campaign: row.campaign, orgName: row.orgName, expiresAt: row.optIn.expiresAt } as const;
}

/** Deletes the requests that expired unconfirmed (the sender calls it): an address nobody confirmed is not kept. */
export async function purgeExpiredOptIns(deps: Pick<Deps, "db" | "now">): Promise<number> {
  const gone = await deps.db
    .delete(campaignOptIns)
    .where(and(isNull(campaignOptIns.confirmedAt), lte(campaignOptIns.expiresAt, deps.now())))
    .returning({ id: campaignOptIns.id });
  return gone.length;
}

/** The latest requests for an address (tests and support: what was asked, and whether it was confirmed). */
export async function optInsOf(deps: Pick<Deps, "db">, orgId: string, email: string): Promise<OptIn[]> {
  return deps.db
    .select()
    .from(campaignOptIns)
    .where(and(eq(campaignOptIns.orgId, orgId), eq(campaignOptIns.email, email.trim().toLowerCase())))
    .orderBy(desc(campaignOptIns.requestedAt));
}
