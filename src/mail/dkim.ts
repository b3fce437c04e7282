// DKIM signing of every outgoing email (RFC 6376), campaigns and ticket replies alike, through
// nodemailer's own signer. The signed header fields are the ones docs/interface.md H lists: a receiver that
// re-threads or unsubscribes relies on them, so none may be altered in transit unnoticed. `d=` is
// DKIM_DOMAIN, which must align with MAIL_FROM's domain for DMARC (README "Email channel").
import type { Config } from "../config.ts";

export const DKIM_SIGNED_HEADERS = [
  "From",
  "To",
  "Subject",
  "Date",
  "Message-ID",
  "In-Reply-To",
  "References",
  "Reply-To",
  "List-Unsubscribe",
  "List-Unsubscribe-Post",
] as const;

/** nodemailer's `dkim` transport option, or undefined when DKIM is not configured. */
export function dkimOptions(config: Pick<Config, "dkim">) {
  if (!config.dkim) return undefined;
  return {
    domainName: config.dkim.domain,
    keySelector: config.dkim.selector,
    privateKey: config.dkim.privateKey,
    headerFieldNames: DKIM_SIGNED_HEADERS.join(":"),
  };
}
