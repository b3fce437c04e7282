// Delivers one campaign email from the outbox (kind `campaign.email`). Everything is checked again
// at send time, because the row may have waited: the customer may have unsubscribed or been
// removed, the campaign paused or archived, the step deleted. Then a fresh unsubscribe token is
// minted (only its SHA-256 is stored), put in the body and in the RFC 8058 headers, and the
// message goes out with the row's stable Message-ID.
import { and, eq } from "drizzle-orm";
import { messageIdOf } from "./queries.ts";
import { withUnsubscribeUrl } from "./templates.ts";
import { campaignEnrolments, campaignMessages, campaigns, mailUnsubscribes } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import type { OutboxHandler, OutboxOutcome, OutboxRow } from "../outbox/outbox.ts";
import { type MailTransport, SmtpFailure } from "../mail/smtp.ts";
import { issueUnsubscribeToken } from "./unsubscribe.ts";
import { emitCampaignMessageSent } from "../webhooks/emit.ts";

/** Backoff after the 1st, 2nd, … temporary failure (seconds): 9 attempts over about 24 hours. */
export const MAIL_RETRY_SCHEDULE = [30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600] as const;

export const NO_SMTP_REASON = "not sent: no SMTP configured";

export function campaignMailHandler(deps: Deps, transport: MailTransport | null): OutboxHandler {
  return {
    retrySchedule: MAIL_RETRY_SCHEDULE,
    // A customer's steps are one lane (their enrolment): step n+1 is handed to SMTP only after
    // step n was accepted or given up, even when it has no delay (README "Email series").
    ordered: true,
    onSent: (tx, row, now) => emitCampaignMessageSent(tx, row, now), // webhooks: campaign.message.sent, committed with the `sent` record
    async deliver(row: OutboxRow): Promise<OutboxOutcome> {
      const messageId = row.payload.message_id;
      if (typeof messageId !== "string") return { kind: "failed", reason: "malformed outbox row" };
      const [found] = await deps.db
        .select({ m: campaignMessages, campaign: campaigns, state: campaignEnrolments.state })
        .from(campaignMessages)
        .innerJoin(campaigns, eq(campaigns.id, campaignMessages.campaignId))
        .innerJoin(campaignEnrolments, eq(campaignEnrolments.id, campaignMessages.enrolmentId))
        .where(and(eq(campaignMessages.orgId, row.orgId), eq(campaignMessages.id, messageId)));
      if (!found) return { kind: "cancelled", reason: "message no longer exists" };
      const { m, campaign, state } = found;
      const [unsubscribed] = await deps.db
        .select({ id: mailUnsubscribes.endUserId })
        .from(mailUnsubscribes)
        .where(and(eq(mailUnsubscribes.orgId, row.orgId), eq(mailUnsubscribes.endUserId, m.endUserId)));
      if (unsubscribed || state === "unsubscribed") return { kind: "cancelled", reason: "customer unsubscribed" };
      if (state === "removed") return { kind: "cancelled", reason: "customer removed from the series" };
      if (campaign.status === "archived") return { kind: "cancelled", reason: "campaign archived" };
      if (campaign.status !== "active") return { kind: "parked", reason: `campaign ${campaign.status}` };
      if (!campaign.steps.some((s) => s.id === m.stepId)) return { kind: "cancelled", reason: "step removed from the campaign" };
      if (!m.toEmail) return { kind: "held", reason: "not sent: customer has no email address" };
      if (!transport) return { kind: "held", reason: NO_SMTP_REASON };
      const url = await issueUnsubscribeToken(deps, { orgId: row.orgId, endUserId: m.endUserId, messageId: m.id });
      const mail = withUnsubscribeUrl(m, url);
      try {
        await transport.send({
          from: { name: campaign.sender.name, address: deps.config.mailFrom },
          to: m.toEmail,
          replyTo: campaign.sender.replyTo,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: messageIdOf(row.id, deps.config.mailFrom),
          // RFC 2369 and RFC 8058 section 3.1: a one-click POST to this https URL unsubscribes.
          headers: { "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
        });
      } catch (error) {
        if (error instanceof SmtpFailure) return error.temporary ? { kind: "retry", reason: error.message } : { kind: "failed", reason: error.message };
        throw error;
      }
      return { kind: "sent" };
    },
  };
}
