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
import { customerTexts, type Texts } from "../texts/store.ts";

type Request = Exclude<Awaited<ReturnType<typeof optInMail>>, { cancel: string }>;

/** In the org's default language: who asked is not known beyond an address (README "Languages"). */
function render(mail: Request, texts: Texts) {
  const series = mail.campaign.name;
  const intro = texts.t("mail.optin_intro", { series, org: mail.orgName, email: mail.to });
  const ignore = texts.t("mail.optin_ignore", { until: mail.expiresAt });
  return {
    fromName: mail.campaign.sender.name,
    replyTo: mail.campaign.sender.replyTo,
    subject: texts.t("mail.optin_subject", { series }),
    text: `${intro}\n\n${texts.t("mail.optin_confirm_text", { url: mail.url })}\n\n${ignore}\n`,
    html: `<p>${escapeHtml(intro)}</p>\n<p><a href="${escapeHtml(mail.url)}">${escapeHtml(texts.t("mail.optin_confirm"))}</a></p>\n<p>${escapeHtml(ignore)}</p>\n`,
    // RFC 3834 section 5: sent by a program on a request, not by a person.
    headers: { "Auto-Submitted": "auto-generated" },
  };
}

export function optInMailHandler(deps: Pick<Deps, "cipher" | "config" | "db" | "now" | "texts">, transport: MailTransport | null): OutboxHandler {
  return mailHandler(deps, transport, {
    async load(row) {
      const optInId = row.payload.opt_in_id;
      if (typeof optInId !== "string") return MALFORMED;
      const mail = await optInMail(deps, row.orgId, optInId);
      if (mail.cancel !== undefined) return { kind: "cancelled", reason: mail.cancel };
      return { to: mail.to, data: { mail: mail as Request, orgId: row.orgId } };
    },
    render: async ({ mail, orgId }) => render(mail, await customerTexts(deps, orgId, null)),
  });
}
