// Each org's support alias: `<alias>@<INBOUND_EMAIL_DOMAIN>` opens a ticket for whoever writes to
// it (docs/decisions.md "Support aliases"). One alias per org, unique across orgs; the format is a
// conservative local part (RFC 5321 section 4.1.2) that survives every mail system: lower-case
// letters, digits, dots, hyphens and underscores, 1 to 64 characters, starting and ending with a
// letter or digit. Names mail systems reserve, and our `reply+` addresses, are refused.
import { eq } from "drizzle-orm";
import { recordActivity } from "../activity/log.ts";
import { orgMailSettings } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { Actor } from "../kit/actor.ts";

export const ALIAS_PATTERN = "^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$";
/** RFC 2142 mailbox names and the reply addresses' prefix. */
export const RESERVED_ALIASES = ["reply", "postmaster", "abuse", "hostmaster", "webmaster", "mailer-daemon", "noreply", "no-reply", "root"] as const;

export interface MailSettingsView {
  support_alias: string | null;
  /** The full address, when the alias and INBOUND_EMAIL_DOMAIN are both set. */
  support_address: string | null;
  inbound_enabled: boolean;
}

function view(deps: Pick<Deps, "config">, alias: string | null): MailSettingsView {
  const domain = deps.config.inbound.domain;
  const enabled = domain !== undefined && (deps.config.inbound.smtpPort !== undefined || deps.config.inbound.webhookSecret !== undefined);
  return { support_alias: alias, support_address: alias && domain ? `${alias}@${domain}` : null, inbound_enabled: enabled };
}

export async function mailSettings(deps: Pick<Deps, "config" | "db">, orgId: string): Promise<MailSettingsView> {
  const [row] = await deps.db.select({ alias: orgMailSettings.supportAlias }).from(orgMailSettings).where(eq(orgMailSettings.orgId, orgId));
  return view(deps, row?.alias ?? null);
}

/** Sets (or, with null, removes) the org's alias; 400 for a bad or reserved one, 409 `alias_taken` when another org has it. */
export async function setSupportAlias(deps: Pick<Deps, "config" | "db" | "now">, orgId: string, actor: Actor, raw: string | null): Promise<MailSettingsView> {
  const alias = raw === null ? null : raw.trim().toLowerCase();
  if (alias !== null) {
    if (!new RegExp(ALIAS_PATTERN).test(alias) || alias.includes(".."))
      throw AppError.badRequest(
        "Invalid support_alias: must be 1 to 64 lower-case letters, digits, dots, hyphens or underscores, starting and ending with a letter or digit.",
        [{ path: "/support_alias", message: "is not a valid alias" }],
      );
    if ((RESERVED_ALIASES as readonly string[]).includes(alias) || alias.startsWith("reply"))
      throw AppError.badRequest(`Invalid support_alias: "${alias}" is reserved.`, [{ path: "/support_alias", message: "is reserved" }]);
  }
  const now = deps.now();
  await deps.db
    .transaction(async (tx) => {
      if (alias !== null) {
        const [holder] = await tx.select({ orgId: orgMailSettings.orgId }).from(orgMailSettings).where(eq(orgMailSettings.supportAlias, alias));
        if (holder && holder.orgId !== orgId) throw new AppError(409, "alias_taken", "Another organisation uses this support alias.");
      }
      await tx
        .insert(orgMailSettings)
        .values({ orgId, supportAlias: alias, updatedAt: now })
        .onConflictDoUpdate({ target: orgMailSettings.orgId, set: { supportAlias: alias, updatedAt: now } });
      await recordActivity(
        { db: tx, now: () => now },
        { orgId, actor, action: "mail_settings.updated", objectType: "org", objectId: orgId, summary: { support_alias: alias } },
      );
    })
    .catch((error: unknown) => {
      // Two orgs claiming one alias at once: the unique index decides.
      if (error instanceof AppError) throw error;
      if (isUniqueViolation(error)) throw new AppError(409, "alias_taken", "Another organisation uses this support alias.");
      throw error;
    });
  return view(deps, alias);
}

/** SQLSTATE 23505, wherever the driver puts it (postgres.js and PGlite errors arrive wrapped by drizzle). */
function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++)
    if (e.code === "23505") return true;
  return false;
}
