// A ticket message that arrived by email: who sent it (marked when it was not the customer's
// address, or when it claimed another ticket unproven), and the original as received (quoted
// history, signature) with the attachments it listed, for members to expand.
import type { OriginalEmail } from "../../mail-in/originals.ts";
import { type Html, html } from "../../html/html.ts";

/** Who sent a message that came by email; marked when it was not the customer's address. */
export function emailSender(original: OriginalEmail | undefined): Html | "" {
  if (!original) return "";
  const sender = original.fromCustomer
    ? html`<p class="muted">By email from ${original.from} · DMARC: ${original.dmarc}</p>`
    : html`<p><span class="badge warn">Not the customer's address</span> Sent by email from <strong>${original.from}</strong> · DMARC: ${original.dmarc}</p>`;
  const another = html`<a href="/dashboard/inbox/${original.claimedTicketId}">another ticket</a>`;
  const apart = html`kept apart because its sender was not authenticated (DMARC ${original.dmarc}).`;
  const claimed = original.claimedTicketId ? html`<p><span class="badge warn">Unverified sender</span> Claims to answer ${another}; ${apart}</p>` : "";
  return html`${sender}${claimed}`;
}

/** The original email as received, and the attachments it listed (not stored). */
export function emailOriginal(original: OriginalEmail | undefined): Html | "" {
  if (!original) return "";
  const list = original.attachments.map((a, i) => html`${i > 0 ? ", " : ""}${a.name} (${Math.ceil(a.size / 1024)} KB)`);
  const files = original.attachments.length > 0 ? html`<p class="muted">Attachments (not stored): ${list}</p>` : "";
  const results = html`<p class="muted">Authentication-Results: ${original.authResults || "none"}</p>`;
  return html`<details><summary>The original email from ${original.from}</summary>${files}${results}<pre>${original.original}</pre></details>`;
}
