// The one shape of every Message-ID we write (RFC 5322 section 3.6.4): `<local@MAIL_FROM domain>`,
// the domain in lower case. The local part is a UUID the sender already has — the outbox row's id,
// or a ticket message's id for a reply (README "Email channel") — so the id is the same on every
// retry and needs no column.

export function mailDomainOf(mailFrom: string): string {
  return mailFrom.slice(mailFrom.lastIndexOf("@") + 1).toLowerCase();
}

/** `<local@domain>` for a UUID of ours. */
export function messageIdFor(local: string, mailFrom: string): string {
  return `<${local}@${mailDomainOf(mailFrom)}>`;
}
