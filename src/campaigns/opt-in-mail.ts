// One double opt-in confirmation (outbox kind `campaign.opt_in`, queued by
// src/campaigns/opt-in.ts) as a `load` and a `render` of the mail kind (src/outbox/mail-kind.ts).
// Checked again at send time: a request that expired or was confirmed meanwhile, or whose series
// was archived, is not mailed. The mail carries nothing the requester typed except the address it
// goes to: the series' and the organisation's names come from the org.
import { optInMail } from "../campaigns/opt-in.ts";
import type { Deps } from "../deps.ts";
import { escapeHtml } from "../html/html.ts";
import type { OutboxHandler } from "../outbox/outbox.ts";
import { MALFORMED, mailHandler } from "../outbox/mail-kind.ts";
import type { MailTransport } from "../mail/smtp.ts";

type Request = Exclude<Awaited<ReturnType<typeof optInMail>>, { cancel: string }>;

function render(mail: Request) {
  const until = `${mail.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const intro = `Please confirm that you want to receive the email series "${mail.campaign.name}" from ${mail.orgName} at ${mail.to}.`;
  const ignore = `If you did not ask for it, ignore this email: nothing more will be sent to you. The link works until ${until}.`;
  return {
    fromName: mail.campaign.sender.name,
    replyTo: mail.campaign.sender.replyTo,
    subject: `Confirm your subscription: ${mail.campaign.name}`,
    text: `${intro}\n\nConfirm: ${mail.url}\n\n${ignore}\n`,
    html: `<p>${escapeHtml(intro)}</p>\n<p><a href="${escapeHtml(mail.url)}">Confirm my subscription</a></p>\n<p>${escapeHtml(ignore)}</p>\n`,
    // RFC 3834 section 5: sent by a program on a request, not by a person.
    headers: { "Auto-Submitted": "auto-generated" },
  };
}

export function optInMailHandler(deps: Deps, transport: MailTransport | null): OutboxHandler {
  return mailHandler(deps, transport, {
    async load(row) {
      const optInId = row.payload.opt_in_id;
      if (typeof optInId !== "string") return MALFORMED;
      const mail = await optInMail(deps, row.orgId, optInId);
      if (mail.cancel !== undefined) return { kind: "cancelled", reason: mail.cancel };
      return { to: mail.to, data: mail as Request };
    },
    render,
  });
}
