// Whether the customer's chat is open now (README "Live conversation"): a line the page's script
// fills in and keeps current, on a conversation's page and on a chat's ticket.
import { type Html, html } from "../../html/html.ts";

const TEXT = html`<span class="badge">on the site?</span> Whether the customer's chat is open now shows here while the page's script runs.`;

/**
 * Filled in from `url` (a stream of its own), or from the page's thread stream when `url` is null
 * (the ticket page).
 */
export function PresenceLine({ url, orgId }: { url: string | null; orgId: string }): Html {
  return html`<p class="presence muted" aria-live="polite"${url ? html` data-presence-events="${url}" data-org="${orgId}"` : ""}>${TEXT}</p>`;
}
