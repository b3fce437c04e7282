// The invitation email (README "Dashboard APIs", members; docs/decisions.md "Invitations are
// mailed"): when SMTP is configured, inviting someone also emails them the link, through the outbox
// as every other email (src/outbox/mail-kind.ts: held, retried, failed the same way). The link is a
// bearer capability shown once to the admin; the outbox row carries it encrypted with the field
// cipher (associated data: the invitation's token column and row), it is decrypted only when the
// email is about to go out, and the payload is cut down to the invitation's id once the email was accepted.
// An invitation accepted, revoked, replaced or expired before the email goes is not mailed.
import { and, eq } from "drizzle-orm";
import type { Tx } from "../db/client.ts";
import { memberInvitations } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { escapeHtml } from "../html/html.ts";
import type { MailTransport } from "../mail/smtp.ts";
import { displayName, MALFORMED, mailHandler } from "../outbox/mail-kind.ts";
import { enqueue, type OutboxHandler, type OutboxRow, replacePayload } from "../outbox/outbox.ts";
import { memberById } from "../tenancy/members.ts";
import { orgName } from "../tenancy/orgs.ts";
import { describeRoles } from "../auth/roles.ts";

export const INVITATION_MAIL_KIND = "member.invitation";

/** The associated data of an invitation's encrypted token: its table, column and row. */
const tokenContext = (invitationId: string) => `member_invitations.token:${invitationId}`;

/** Queues the invitation email in the transaction that makes the invitation. */
export async function queueInvitationEmail(
  tx: Tx,
  deps: Pick<Deps, "cipher">,
  p: { orgId: string; invitationId: string; token: string; now: Date },
): Promise<void> {
  await enqueue(tx, {
    orgId: p.orgId,
    kind: INVITATION_MAIL_KIND,
    payload: { invitation_id: p.invitationId, token: deps.cipher.encrypt(p.token, tokenContext(p.invitationId)) },
    runAt: p.now,
    now: p.now,
  });
}

interface Found {
  id: string;
  email: string;
  roles: string[];
  expiresAt: Date;
  org: string;
  inviter: string | null;
  token: string;
}

async function load(deps: Pick<Deps, "cipher" | "db" | "now">, row: OutboxRow) {
  const { invitation_id: id, token: sealed } = row.payload as { invitation_id?: unknown; token?: unknown };
  if (typeof id !== "string" || typeof sealed !== "string") return MALFORMED;
  const [invitation] = await deps.db
    .select()
    .from(memberInvitations)
    .where(and(eq(memberInvitations.orgId, row.orgId), eq(memberInvitations.id, id)));
  if (!invitation) return { kind: "cancelled" as const, reason: "invitation no longer exists" };
  if (invitation.acceptedAt) return { kind: "cancelled" as const, reason: "invitation already accepted" };
  if (invitation.revokedAt) return { kind: "cancelled" as const, reason: "invitation revoked or replaced" };
  if (invitation.expiresAt <= deps.now()) return { kind: "cancelled" as const, reason: "invitation expired" };
  let token: string;
  try {
    token = deps.cipher.decrypt(sealed, tokenContext(invitation.id));
  } catch {
    return { kind: "failed" as const, reason: "the invitation link cannot be decrypted (was SECRET_KEY changed?)" };
  }
  const inviter = invitation.invitedBy ? await memberById(deps.db, invitation.invitedBy) : null;
  const found: Found = {
    id: invitation.id,
    email: invitation.email,
    roles: invitation.roles,
    expiresAt: invitation.expiresAt,
    org: (await orgName(deps.db, row.orgId)) ?? "",
    // What the widget would show of them: their display name, never their address.
    inviter: inviter?.name.trim() || null,
    token,
  };
  return { to: invitation.email, data: found };
}

export function renderInvitation(p: { org: string; inviter: string | null; roles: string[]; link: string; expires: string }) {
  const who = p.inviter ? `${p.inviter} invited you` : "You are invited";
  const intro = `${who} to join ${p.org} on svc-agents. Your roles: ${describeRoles(p.roles)}.`;
  const footer = `The link works once, until ${p.expires}. If you did not expect this, ignore this email: nothing happens until the link is used.`;
  const text = `${intro}\n\nAccept the invitation: ${p.link}\n\n-- \n${footer}\n`;
  const html = `<!doctype html><html><body><p>${escapeHtml(intro)}</p>\n<p><a href="${escapeHtml(p.link)}">Accept the invitation</a></p>\n<p style="color:#666;font-size:12px">${escapeHtml(footer)}</p></body></html>`;
  return { text, html };
}

function render(deps: Pick<Deps, "config">, found: Found) {
  const org = displayName(found.org) || "svc-agents";
  const link = `${deps.config.baseUrl.replace(/\/$/, "")}/invite/${found.token}`;
  const expires = `${found.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const { text, html } = renderInvitation({ org, inviter: found.inviter ? displayName(found.inviter) : null, roles: found.roles, link, expires });
  return { fromName: org, subject: `Join ${org} on svc-agents`, text, html, headers: { "Auto-Submitted": "auto-generated" } };
}

/** Invitation emails as a kind of the one mail handler (src/outbox/mail-kind.ts). */
export function invitationMailHandler(deps: Pick<Deps, "cipher" | "config" | "db" | "now">, transport: MailTransport | null): OutboxHandler {
  return mailHandler(deps, transport, {
    load: (row) => load(deps, row),
    render: (found) => render(deps, found),
    // The link is not kept once the email is out: the payload keeps the invitation's id only.
    onSent: (tx, row, now) => replacePayload(tx, row.id, { invitation_id: row.payload.invitation_id }, now),
  });
}
