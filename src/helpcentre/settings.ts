// The help centre's settings (one row per org, help_centres): on or off, the slug of /help/<slug>,
// a custom domain served once its TXT record proves the org controls it, the public tags in the
// order of their collections, a footer. Admins change them (role org:manage) from the dashboard.
import { randomBytes } from "node:crypto";
import { and, eq, isNotNull, sql } from "drizzle-orm";
import { recordActivity } from "../activity/log.ts";
import { helpCentres } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { systemMailDns } from "../mail-in/authenticate.ts";
import type { Actor } from "../kit/actor.ts";

export const HELP_LIMITS = {
  slug: 48,
  domain: 253,
  collections: 30,
  tag: 64,
  footer: 500,
} as const;

/** Lower-case letters, digits and inner hyphens: one path segment. */
export const HELP_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/;
/** A DNS name of two labels or more (RFC 1035 section 2.3.1, lower-cased), no port, no trailing dot. */
const DOMAIN = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** The TXT record that proves a custom domain: `<DOMAIN_RECORD>.<domain>` holding the row's token. */
export const DOMAIN_RECORD = "_svc-agents";

export type HelpCentreRow = typeof helpCentres.$inferSelect;

export interface HelpCentreInput {
  enabled: boolean;
  slug: string;
  custom_domain: string | null;
  collections: string[];
  footer: string;
}

export function helpCentreView(row: HelpCentreRow) {
  return {
    enabled: row.enabled,
    slug: row.slug,
    custom_domain: row.customDomain,
    domain_record: row.customDomain ? { name: `${DOMAIN_RECORD}.${row.customDomain}`, type: "TXT", value: `svc-agents-verify=${row.domainToken}` } : null,
    domain_verified: row.domainVerifiedAt !== null,
    collections: row.collections,
    footer: row.footer,
  };
}

export async function helpCentreOfOrg(deps: Pick<Deps, "db">, orgId: string): Promise<HelpCentreRow | null> {
  const [row] = await deps.db.select().from(helpCentres).where(eq(helpCentres.orgId, orgId));
  return row ?? null;
}

/** The help centre at /help/<slug>, when it is switched on. */
export async function enabledHelpCentreBySlug(deps: Pick<Deps, "db">, slug: string): Promise<HelpCentreRow | null> {
  if (!HELP_SLUG.test(slug)) return null;
  const [row] = await deps.db
    .select()
    .from(helpCentres)
    .where(and(eq(helpCentres.slug, slug), eq(helpCentres.enabled, true)));
  return row ?? null;
}

/** The help centre a host name is the verified custom domain of, when it is switched on. */
export async function helpCentreByDomain(deps: Pick<Deps, "db">, host: string): Promise<HelpCentreRow | null> {
  if (!DOMAIN.test(host)) return null;
  const [row] = await deps.db
    .select()
    .from(helpCentres)
    .where(and(eq(helpCentres.customDomain, host), isNotNull(helpCentres.domainVerifiedAt), eq(helpCentres.enabled, true)));
  return row ?? null;
}

/** SQLSTATE 23505, wherever the driver puts it (postgres.js and PGlite errors arrive wrapped by drizzle). */
function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++)
    if (e.code === "23505") return true;
  return false;
}

function invalid(path: string, message: string): AppError {
  return AppError.badRequest("The help centre settings are invalid.", [{ path, message }]);
}

/** Checks and normalises the input; throws 400 naming the field. */
export function checkHelpCentreInput(input: HelpCentreInput): HelpCentreInput {
  const slug = input.slug.trim().toLowerCase();
  // not for customers: a member's settings error
  if (!HELP_SLUG.test(slug)) throw invalid("/slug", `must be 1 to ${HELP_LIMITS.slug} lower-case letters, digits or inner hyphens`);
  const domain = input.custom_domain?.trim().toLowerCase().replace(/\.$/, "") || null;
  // not for customers: a member's settings error
  if (domain !== null && !DOMAIN.test(domain)) throw invalid("/custom_domain", "must be a host name such as help.example.com, without scheme, port or path");
  if (input.collections.length > HELP_LIMITS.collections) throw invalid("/collections", `at most ${HELP_LIMITS.collections} tags`);
  const collections: string[] = [];
  for (const [i, raw] of input.collections.entries()) {
    const tag = raw.trim();
    if (tag === "" || tag.length > HELP_LIMITS.tag || /[\x00-\x1f\x7f]/.test(tag))
      throw invalid(`/collections/${i}`, `must be a tag of 1 to ${HELP_LIMITS.tag} characters`); // not for customers: a member's settings error
    // not for customers: a member's settings error
    if (tag === "internal") throw invalid(`/collections/${i}`, "the tag internal keeps articles off the help centre; it cannot be public");
    if (!collections.includes(tag)) collections.push(tag);
  }
  if (input.footer.length > HELP_LIMITS.footer) throw invalid("/footer", `at most ${HELP_LIMITS.footer} characters`);
  return { enabled: input.enabled, slug, custom_domain: domain, collections, footer: input.footer.trim() };
}

/** Saves the settings; a new or changed custom domain starts unverified with a fresh token. 409 when the slug or domain is another org's. */
export async function saveHelpCentre(deps: Pick<Deps, "db" | "now">, orgId: string, actor: Actor, raw: HelpCentreInput): Promise<HelpCentreRow> {
  const input = checkHelpCentreInput(raw);
  const now = deps.now();
  const before = await helpCentreOfOrg(deps, orgId);
  const domainChanged = before?.customDomain !== input.custom_domain;
  const values = {
    enabled: input.enabled,
    slug: input.slug,
    customDomain: input.custom_domain,
    collections: input.collections,
    footer: input.footer,
    updatedAt: now,
    ...(domainChanged ? { domainToken: randomBytes(18).toString("base64url"), domainVerifiedAt: null } : {}),
  };
  let row: HelpCentreRow | undefined;
  try {
    [row] = await deps.db
      .insert(helpCentres)
      .values({ orgId, domainToken: randomBytes(18).toString("base64url"), ...values })
      .onConflictDoUpdate({ target: helpCentres.orgId, set: values })
      .returning();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const [bySlug] = await deps.db.select({ orgId: helpCentres.orgId }).from(helpCentres).where(eq(helpCentres.slug, input.slug));
    // not for customers: a member's settings error
    if (bySlug && bySlug.orgId !== orgId) throw new AppError(409, "slug_taken", "Another organisation's help centre has this slug.");
    throw new AppError(409, "domain_taken", "Another organisation's help centre has this domain."); // not for customers: a member's settings error
  }
  await recordActivity(deps, {
    orgId,
    actor,
    action: "help_centre.updated",
    objectType: "org",
    objectId: orgId,
    summary: { enabled: input.enabled, slug: input.slug },
  });
  return row!;
}

/**
 * Looks the custom domain's TXT record up (deps.mailDns: the system's resolver, a fake in tests)
 * and marks the domain verified when a record holds the token. Answers whether it is now verified;
 * a failed lookup is "not yet", never an error of ours.
 */
export async function verifyDomain(deps: Pick<Deps, "db" | "mailDns" | "now">, orgId: string, actor: Actor): Promise<boolean> {
  const row = await helpCentreOfOrg(deps, orgId);
  if (!row?.customDomain) throw AppError.badRequest("Set a custom domain first.", [{ path: "/custom_domain", message: "is not set" }]);
  if (row.domainVerifiedAt) return true;
  const dns = deps.mailDns ?? systemMailDns();
  let records: (string | string[])[] = [];
  try {
    records = await dns(`${DOMAIN_RECORD}.${row.customDomain}`, "TXT");
  } catch {
    return false;
  }
  const wanted = `svc-agents-verify=${row.domainToken}`;
  // A TXT record may come split into strings of at most 255 bytes (RFC 1035 section 3.3.14): joined first.
  if (!records.some((r) => (Array.isArray(r) ? r.join("") : r).trim() === wanted)) return false;
  await deps.db
    .update(helpCentres)
    .set({ domainVerifiedAt: deps.now() })
    .where(and(eq(helpCentres.orgId, orgId), eq(helpCentres.customDomain, row.customDomain), sql`${helpCentres.domainVerifiedAt} is null`));
  await recordActivity(deps, {
    orgId,
    actor,
    action: "help_centre.domain_verified",
    objectType: "org",
    objectId: orgId,
    summary: { domain: row.customDomain },
  });
  return true;
}
