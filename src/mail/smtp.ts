// Outbound SMTP through nodemailer, configured by SMTP_URL (smtp:// with STARTTLS when offered,
// smtps:// for implicit TLS; credentials in the URL). No hand-written SMTP.
//
// Failures are sorted the way SMTP means them (RFC 5321 section 4.2.1, docs/interface.md F): a 4yz reply is
// temporary, a 5yz reply permanent; no reply at all (refused connection, timeout, DNS, TLS,
// dropped socket) is temporary. One exception: an authentication failure (EAUTH, even as 535) is
// about our account, not the message, so it is retried — the operator fixes the credentials and
// nothing is lost (docs/decisions.md).
import nodemailer from "nodemailer";
import type { Config } from "../config.ts";
import { dkimOptions } from "./dkim.ts";

export interface OutgoingMail {
  from: { name: string; address: string };
  to: string;
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
  /** `<id@domain>`, stable per outbox row. */
  messageId: string;
  /** RFC 5322 section 3.6.4: the message answered, and the thread's ids, so mail clients thread it. */
  inReplyTo?: string;
  references?: string[];
  headers: Record<string, string>;
}

export interface MailTransport {
  /** Resolves once the server accepted the message; throws SmtpFailure otherwise. */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export class SmtpFailure extends Error {
  constructor(
    readonly temporary: boolean,
    message: string,
  ) {
    super(message);
  }
}

/** Sorts a nodemailer error into temporary or permanent, with a short reason (no credentials). */
export function classifySmtpError(error: unknown): SmtpFailure {
  const e = error as { code?: string; responseCode?: number; response?: string; message?: string };
  const reply = typeof e.response === "string" ? e.response.replace(/[\r\n]+/g, " ").slice(0, 300) : undefined;
  if (e.code === "EAUTH" || e.code === "ENOAUTH") return new SmtpFailure(true, `SMTP authentication failed${reply ? `: ${reply}` : ""}`);
  if (typeof e.responseCode === "number") {
    const temporary = e.responseCode >= 400 && e.responseCode < 500;
    return new SmtpFailure(temporary, `SMTP ${temporary ? "temporary" : "permanent"} failure: ${reply ?? e.responseCode}`);
  }
  if (e.code === "EENVELOPE" || e.code === "EMESSAGE" || e.code === "ECONFIG")
    return new SmtpFailure(false, `SMTP refused the message: ${e.message ?? e.code}`.slice(0, 300));
  return new SmtpFailure(true, `SMTP connection problem (${e.code ?? "error"}): ${(e.message ?? "").slice(0, 200)}`);
}

/** The transport SMTP_URL names, or null when it is unset (mail is then kept, not sent). */
export function smtpTransport(config: Pick<Config, "smtpUrl" | "dkim">): MailTransport | null {
  if (!config.smtpUrl) return null;
  const transporter = nodemailer.createTransport({
    url: config.smtpUrl,
    pool: true,
    maxConnections: 3,
    // Together well under the outbox lease (src/outbox/claim.ts), so a stuck server never outlives a claim.
    connectionTimeout: 20_000,
    greetingTimeout: 20_000,
    socketTimeout: 60_000,
    dkim: dkimOptions(config),
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    async send(mail) {
      try {
        await transporter.sendMail({
          from: mail.from,
          to: mail.to,
          replyTo: mail.replyTo,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: mail.messageId,
          inReplyTo: mail.inReplyTo,
          references: mail.references,
          headers: mail.headers,
        });
      } catch (error) {
        throw classifySmtpError(error);
      }
    },
    close: () => transporter.close(),
  };
}
