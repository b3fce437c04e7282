// The one outbox handler for email (README "Email channel"; docs/decisions.md "One mail handler").
// Each kind of email — a ticket reply, a member notice, a series step, an opt-in confirmation — is
// a `load` (read the row's subject again at send time: it may have waited, and say why it is no
// longer sent) and a `render` (what the email says). Everything else is here, the
// same for all of them:
// - no address → `held` ("not sent: customer has no email address"); no SMTP_URL → `held`;
// - SMTP's answer sorted by src/mail/smtp.ts: temporary (4xx, no answer) → `retry` on
//   MAIL_RETRY_SCHEDULE, permanent (5xx) → `failed`;
// - the Message-ID (src/mail/message-id.ts): the row's id unless the kind names its own UUID;
// - the From display name cleaned of line breaks, quotes and angle brackets, bounded;
// - DKIM: the transport signs every message it sends (src/mail/dkim.ts), and this is the only
//   path any email takes to it.
import type { Deps } from "../deps.ts";
import { type MailTransport, type OutgoingMail, SmtpFailure } from "../mail/smtp.ts";
import { messageIdFor } from "../mail/message-id.ts";
import type { OutboxHandler, OutboxOutcome, OutboxRow } from "./outbox.ts";

/** Backoff after the 1st, 2nd, … temporary failure (seconds): 9 attempts over about 24 hours, for every email. */
export const MAIL_RETRY_SCHEDULE = [30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600] as const;

export const NO_SMTP_REASON = "not sent: no SMTP configured";
export const NO_ADDRESS_REASON = "not sent: customer has no email address";

/** Why a loaded row is not sent (now, or ever). */
export type MailStop = { kind: "cancelled" | "held" | "parked" | "failed"; reason: string };

/** What `load` found: the address to write to (null: none known) and whatever `render` needs. */
export interface Loaded<T> {
  to: string | null;
  data: T;
}

export interface RenderedMail {
  /** The sender's display name (cleaned here); the address is always MAIL_FROM. */
  fromName: string;
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
  /** A UUID of the kind's own for the Message-ID's local part (a reply threads on its ticket message); default: the row's id. */
  messageLocal?: string;
  inReplyTo?: string;
  references?: string[];
  headers?: Record<string, string>;
}

export interface MailKind<T> {
  /**
   * Reads the row's subject again; a MailStop says why it is not sent. Runs before the SMTP check, so a row that is no longer wanted is cancelled
   * even without SMTP.
   */
  load(row: OutboxRow): Promise<Loaded<T> | MailStop>;
  /** Runs only when the email is about to go out (it may mint tokens). */
  render(data: T, row: OutboxRow): Promise<RenderedMail> | RenderedMail;
  ordered?: boolean;
  onSent?: OutboxHandler["onSent"];
}

/** A display name safe in a header: no line breaks, quotes or angle brackets, at most 100 characters. */
export function displayName(value: string): string {
  return value
    .replace(/[\r\n"\\<>]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 100);
}

export function mailHandler<T>(deps: Pick<Deps, "config">, transport: MailTransport | null, kind: MailKind<T>): OutboxHandler {
  return {
    retrySchedule: MAIL_RETRY_SCHEDULE,
    ordered: kind.ordered,
    onSent: kind.onSent,
    async deliver(row: OutboxRow): Promise<OutboxOutcome> {
      const loaded = await kind.load(row);
      if ("reason" in loaded) return loaded;
      if (!loaded.to) return { kind: "held", reason: NO_ADDRESS_REASON };
      if (!transport) return { kind: "held", reason: NO_SMTP_REASON };
      const mail = await kind.render(loaded.data, row);
      const outgoing: OutgoingMail = {
        from: { name: displayName(mail.fromName) || "Support", address: deps.config.mailFrom },
        to: loaded.to,
        replyTo: mail.replyTo,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: messageIdFor(mail.messageLocal ?? row.id, deps.config.mailFrom),
        inReplyTo: mail.inReplyTo,
        references: mail.references && mail.references.length > 0 ? mail.references : undefined,
        headers: mail.headers ?? {},
      };
      try {
        await transport.send(outgoing);
      } catch (error) {
        if (error instanceof SmtpFailure) return error.temporary ? { kind: "retry", reason: error.message } : { kind: "failed", reason: error.message };
        throw error;
      }
      return { kind: "sent" };
    },
  };
}

/** A row whose payload lacks what its kind needs: never retried. */
export const MALFORMED: MailStop = { kind: "failed", reason: "malformed outbox row" };
