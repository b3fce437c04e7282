// Setting a member's password without the old one (README "Accounts"): a one-time link, printed by
// `svc-agents user reset-password` or mailed from the sign-in page's "Forgot your password?". Only
// the token's SHA-256 is stored; a link works once, for RESET_TTL_MS, and a new link for the same
// member ends their earlier ones. Using a link (or setting the password from the command line)
// signs out every session of the member. "Forgot password" answers the same whether or not the
// address has an account, and is limited per address and per client IP; the email is queued in
// the outbox and its token minted only when it is sent, so the outbox never holds one.
import { and, eq, gt, isNull } from "drizzle-orm";
import { deleteMemberSessions } from "../auth/sessions.ts";
import { normaliseEmail } from "../auth/signin.ts";
import { mintToken, sha256Hex } from "../crypto/tokens.ts";
import { passwordResets } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { escapeHtml } from "../html/html.ts";
import type { MailTransport } from "../mail/smtp.ts";
import { MALFORMED, mailHandler } from "../outbox/mail-kind.ts";
import { enqueue, type OutboxHandler, type OutboxRow } from "../outbox/outbox.ts";
import type { WindowLimit } from "../ratelimit/leased.ts";
import { memberByEmail, memberById, memberCards, updateMember } from "../tenancy/members.ts";
import { firstOrgOf } from "../tenancy/memberships.ts";
import { PASSWORD_MAX, PASSWORD_MIN } from "./service.ts";

export const RESET_PREFIX = "svc_pwr_";
export const RESET_TTL_MS = 3600_000;
export const RESET_MAIL_KIND = "member.password_reset";
export const FORGOT_LIMITS = {
  /** Reset emails asked for per address per hour. */
  perAccount: { limit: 3, windowSeconds: 3600 } satisfies WindowLimit,
  /** "Forgot password" posts per client IP per hour. */
  perIp: { limit: 10, windowSeconds: 3600 } satisfies WindowLimit,
};

export function resetLink(deps: Pick<Deps, "config">, token: string): string {
  return `${deps.config.baseUrl}/reset-password/${token}`;
}

export function checkNewPassword(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX)
    throw AppError.badRequest(`Choose a password of ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`, [
      { path: "/password", message: `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters` },
    ]);
}

/** A new one-time link for the member (their earlier unused links stop working). */
async function mintReset(deps: Pick<Deps, "db" | "now">, memberId: string): Promise<{ token: string; expiresAt: Date }> {
  const now = deps.now();
  const token = mintToken(RESET_PREFIX);
  const expiresAt = new Date(now.getTime() + RESET_TTL_MS);
  await deps.db.transaction(async (tx) => {
    await tx
      .update(passwordResets)
      .set({ usedAt: now })
      .where(and(eq(passwordResets.memberId, memberId), isNull(passwordResets.usedAt)));
    await tx.insert(passwordResets).values({ memberId, tokenHash: sha256Hex(token), createdAt: now, expiresAt });
  });
  return { token, expiresAt };
}

/** Sets the password and signs out every session of the member. */
async function storePassword(deps: Pick<Deps, "db" | "now" | "passwords">, memberId: string, password: string): Promise<void> {
  checkNewPassword(password);
  const passwordHash = await deps.passwords.hash(password);
  await updateMember(deps.db, memberId, { passwordHash, updatedAt: deps.now() });
  await deleteMemberSessions(deps, memberId);
}

/** `user reset-password`: a link, or the password given (then every session of the member ends). 404 for an unknown address. */
export async function adminResetPassword(deps: Pick<Deps, "config" | "db" | "now" | "passwords">, input: { email: string; password?: string }) {
  const member = await memberByEmail(deps.db, normaliseEmail(input.email));
  if (!member) throw new AppError(404, "not_found", `No member has the email ${normaliseEmail(input.email)}.`);
  if (input.password !== undefined) {
    await storePassword(deps, member.id, input.password);
    return { email: member.email, password_set: true as const };
  }
  const { token, expiresAt } = await mintReset(deps, member.id);
  return { email: member.email, link: resetLink(deps, token), expires_at: expiresAt.toISOString() };
}

/** The member a link belongs to while it is usable, or null (unknown, used, expired or replaced). */
export async function findReset(deps: Pick<Deps, "db" | "now">, token: string): Promise<{ id: string; email: string } | null> {
  if (!token.startsWith(RESET_PREFIX) || token.length > 128) return null;
  const [row] = await deps.db
    .select({ id: memberCards.id, email: memberCards.email })
    .from(passwordResets)
    .innerJoin(memberCards, eq(memberCards.id, passwordResets.memberId))
    .where(and(eq(passwordResets.tokenHash, sha256Hex(token)), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, deps.now())));
  return row ?? null;
}

/** Uses a link: the password is set once; a second use, or a link past its hour, is refused (410). */
export async function resetWithToken(deps: Pick<Deps, "db" | "now" | "passwords">, token: string, password: string): Promise<{ email: string }> {
  checkNewPassword(password);
  if (!token.startsWith(RESET_PREFIX) || token.length > 128) throw gone();
  const [claimed] = await deps.db
    .update(passwordResets)
    .set({ usedAt: deps.now() })
    .where(and(eq(passwordResets.tokenHash, sha256Hex(token)), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, deps.now())))
    .returning({ memberId: passwordResets.memberId });
  if (!claimed) throw gone();
  await storePassword(deps, claimed.memberId, password);
  const member = await memberById(deps.db, claimed.memberId);
  return { email: member?.email ?? "" };
}

function gone() {
  return new AppError(410, "reset_link_invalid", "This link is used, expired or replaced by a newer one. Ask for a new link.");
}

/**
 * "Forgot password": queues a reset email when the address has an account in some org and SMTP is
 * configured; otherwise does nothing. The caller answers the same either way; 429 past the limits.
 */
export async function requestReset(deps: Pick<Deps, "db" | "limiter" | "now">, input: { email: string; ip: string; smtp: boolean }): Promise<void> {
  const email = normaliseEmail(input.email);
  const now = deps.now();
  const keys = [
    { key: `pwreset:account:${sha256Hex(email)}`, limit: FORGOT_LIMITS.perAccount },
    { key: `pwreset:ip:${input.ip}`, limit: FORGOT_LIMITS.perIp },
  ];
  const taken = await Promise.all(keys.map((k) => deps.limiter.take(k.key, k.limit, now)));
  const blocked = taken.filter((t) => !t.allowed);
  if (blocked.length > 0) throw AppError.tooManyRequests(Math.max(...blocked.map((t) => t.retryAfter)), "Too many reset requests. Try again later.");
  if (!input.smtp) return;
  const member = await memberByEmail(deps.db, email);
  if (!member) return;
  // The outbox is kept per org: the member's first org carries the row.
  const orgId = await firstOrgOf(deps.db, member.id);
  if (!orgId) return;
  await enqueue(deps.db, { orgId, kind: RESET_MAIL_KIND, payload: { member_id: member.id }, runAt: now, now });
}

async function loadReset(deps: Pick<Deps, "db">, row: OutboxRow) {
  const { member_id: memberId } = row.payload as Record<string, unknown>;
  if (typeof memberId !== "string") return MALFORMED;
  const found = await memberById(deps.db, memberId);
  if (!found) return { kind: "cancelled" as const, reason: "member no longer exists" };
  return { to: found.email, data: { id: found.id, email: found.email } };
}

async function renderReset(deps: Pick<Deps, "config" | "db" | "now">, member: { id: string }) {
  const { token } = await mintReset(deps, member.id);
  const link = resetLink(deps, token);
  const text = `Someone asked to reset the password of your svc-agents account.\n\nChoose a new password within an hour: ${link}\n\nIf it was not you, ignore this email; your password stays as it is.\n`;
  const html = `<p>Someone asked to reset the password of your svc-agents account.</p><p><a href="${escapeHtml(link)}">Choose a new password</a> within an hour.</p><p>If it was not you, ignore this email; your password stays as it is.</p>`;
  return { fromName: "svc-agents", subject: "Reset your password", text, html, headers: { "Auto-Submitted": "auto-generated" } };
}

/** Reset emails as a kind of the one mail handler (src/outbox/mail-kind.ts). */
export function passwordResetHandler(deps: Pick<Deps, "config" | "db" | "now">, transport: MailTransport | null): OutboxHandler {
  return mailHandler(deps, transport, { load: (row) => loadReset(deps, row), render: (member) => renderReset(deps, member) });
}
