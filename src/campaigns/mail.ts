// One campaign email (outbox kind `campaign.email`) as a `load` and a `render` of the mail kind
// (src/outbox/mail-kind.ts, which holds, retries, fails and signs). Everything is checked again
// at send time, because the row may have waited: the customer may have unsubscribed or been
// removed, the campaign paused or archived, the step deleted. Then a fresh unsubscribe token is
// minted (only its SHA-256 is stored), put in the body and in the RFC 8058 headers, and the
// message goes out with the row's stable Message-ID.
import { and, eq } from "drizzle-orm";
import { withUnsubscribeUrl } from "./templates.ts";
import { campaignEnrolments, campaignMessages, campaigns, mailUnsubscribes } from "../db/schema/index.ts";
import type { Conn } from "../db/client.ts";
import type { Deps } from "../deps.ts";
import type { OutboxHandler, OutboxRow } from "../outbox/outbox.ts";
import { MALFORMED, mailHandler } from "../outbox/mail-kind.ts";
import type { MailTransport } from "../mail/smtp.ts";
import { issueUnsubscribeToken } from "./unsubscribe.ts";
import { emitCampaignMessageSent } from "../webhooks/emit.ts";

type Message = typeof campaignMessages.$inferSelect;
type Campaign = typeof campaigns.$inferSelect;

async function load(deps: Pick<Deps, "db">, row: OutboxRow) {
  const messageId = row.payload.message_id;
  if (typeof messageId !== "string") return MALFORMED;
  const [found] = await deps.db
    .select({ m: campaignMessages, campaign: campaigns, state: campaignEnrolments.state })
    .from(campaignMessages)
    .innerJoin(campaigns, eq(campaigns.id, campaignMessages.campaignId))
    .innerJoin(campaignEnrolments, eq(campaignEnrolments.id, campaignMessages.enrolmentId))
    .where(and(eq(campaignMessages.orgId, row.orgId), eq(campaignMessages.id, messageId)));
  if (!found) return { kind: "cancelled" as const, reason: "message no longer exists" };
  const { m, campaign, state } = found;
  const [unsubscribed] = await deps.db
    .select({ id: mailUnsubscribes.endUserId })
    .from(mailUnsubscribes)
    .where(and(eq(mailUnsubscribes.orgId, row.orgId), eq(mailUnsubscribes.endUserId, m.endUserId)));
  if (unsubscribed || state === "unsubscribed") return { kind: "cancelled" as const, reason: "customer unsubscribed" };
  if (state === "removed") return { kind: "cancelled" as const, reason: "customer removed from the series" };
  if (campaign.status === "archived") return { kind: "cancelled" as const, reason: "campaign archived" };
  if (campaign.status !== "active") return { kind: "parked" as const, reason: `campaign ${campaign.status}` };
  if (!campaign.steps.some((s) => s.id === m.stepId)) return { kind: "cancelled" as const, reason: "step removed from the campaign" };
  return { to: m.toEmail, data: { m, campaign } };
}

async function render(deps: Pick<Deps, "config" | "db" | "now">, row: OutboxRow, { m, campaign }: { m: Message; campaign: Campaign }) {
  const url = await issueUnsubscribeToken(deps, { orgId: row.orgId, endUserId: m.endUserId, messageId: m.id });
  const mail = withUnsubscribeUrl(m, url);
  return {
    fromName: campaign.sender.name,
    replyTo: campaign.sender.replyTo,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    // RFC 2369 and RFC 8058 section 3.1: a one-click POST to this https URL unsubscribes.
    headers: { "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  };
}

export function campaignMailHandler(deps: Pick<Deps, "config" | "db" | "now">, transport: MailTransport | null): OutboxHandler {
  return mailHandler(deps, transport, {
    load: (row) => load(deps, row),
    render: (data, row) => render(deps, row, data),
    // A customer's steps are one lane (their enrolment): step n+1 is handed to SMTP only after
    // step n was accepted or given up, even when it has no delay (README "Email series").
    ordered: true,
    onSent: (tx, row, now) => messageSent(tx, row, now), // webhooks: campaign.message.sent, committed with the `sent` record
  });
}

/** campaign.message.sent, from the campaign message the outbox row delivered. */
async function messageSent(tx: Conn, row: OutboxRow, now: Date): Promise<void> {
  const [m] = await tx
    .select({
      id: campaignMessages.id,
      campaignId: campaignMessages.campaignId,
      endUserId: campaignMessages.endUserId,
      stepId: campaignMessages.stepId,
      subject: campaignMessages.subject,
    })
    .from(campaignMessages)
    .where(and(eq(campaignMessages.orgId, row.orgId), eq(campaignMessages.outboxId, row.id)));
  if (m) await emitCampaignMessageSent(tx, row.orgId, m, now);
}
