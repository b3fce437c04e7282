// Delivers one double opt-in confirmation from the outbox (kind `campaign.opt_in`, queued by
// src/campaigns/opt-in.ts). Checked again at send time: a request that expired or was confirmed
// meanwhile, or whose series was archived, is not mailed. The mail carries nothing the requester
// typed except the address it goes to: the series' and the organisation's names come from the org.
import { optInMail } from "../campaigns/opt-in.ts";
import { messageIdOf } from "../campaigns/queries.ts";
import type { Deps } from "../deps.ts";
import { escapeHtml } from "../html/html.ts";
import { MAIL_RETRY_SCHEDULE, NO_SMTP_REASON } from "./mail.ts";
import type { OutboxHandler, OutboxOutcome, OutboxRow } from "../outbox/outbox.ts";
import { type MailTransport, SmtpFailure } from "../mail/smtp.ts";

export function optInMailHandler(deps: Deps, transport: MailTransport | null): OutboxHandler {
  return {
    retrySchedule: MAIL_RETRY_SCHEDULE,
    async deliver(row: OutboxRow): Promise<OutboxOutcome> {
      const optInId = row.payload.opt_in_id;
      if (typeof optInId !== "string") return { kind: "failed", reason: "malformed outbox row" };
      const mail = await optInMail(deps, row.orgId, optInId);
      if ("cancel" in mail) return { kind: "cancelled", reason: mail.cancel! };
      if (!transport) return { kind: "held", reason: NO_SMTP_REASON };
      const until = `${mail.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
      const intro = `Please confirm that you want to receive the email series "${mail.campaign.name}" from ${mail.orgName} at ${mail.to}.`;
      const ignore = `If you did not ask for it, ignore this email: nothing more will be sent to you. The link works until ${until}.`;
      try {
        await transport.send({
          from: { name: mail.campaign.sender.name, address: deps.config.mailFrom },
          to: mail.to,
          replyTo: mail.campaign.sender.replyTo,
          subject: `Confirm your subscription: ${mail.campaign.name}`,
          text: `${intro}\n\nConfirm: ${mail.url}\n\n${ignore}\n`,
          html: `<p>${escapeHtml(intro)}</p>\n<p><a href="${escapeHtml(mail.url)}">Confirm my subscription</a></p>\n<p>${escapeHtml(ignore)}</p>\n`,
          messageId: messageIdOf(row.id, deps.config.mailFrom),
          // RFC 3834 section 5: sent by a program on a request, not by a person.
          headers: { "Auto-Submitted": "auto-generated" },
        });
      } catch (error) {
        if (error instanceof SmtpFailure) return error.temporary ? { kind: "retry", reason: error.message } : { kind: "failed", reason: error.message };
        throw error;
      }
      return { kind: "sent" };
    },
  };
}
