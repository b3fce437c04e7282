// Whether a customer's identity was verified (README "Widget SDK", identity verification), as a
// badge: the customers list and one customer's page.
import { type Html, html } from "../../html/html.ts";

export function verifiedBadge(verified: boolean): Html {
  return verified ? html`<span class="badge ok">verified</span>` : html`<span class="badge">not verified</span>`;
}
