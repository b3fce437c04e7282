// What archiving a campaign does, in numbers, on its confirmation page.
import { type Html, html } from "../../html/html.ts";

export interface ArchiveConsequencesProps {
  /** Queued messages (capped: at least that many). */
  queued: { count: number; capped: boolean };
  /** Customers still in the series. */
  active: number;
  campaignsPerOrg: number;
}

export function ArchiveConsequences(p: ArchiveConsequencesProps): Html {
  const { queued, active } = p;
  const n = (k: { count: number; capped: boolean }) => (k.capped ? `At least ${k.count.toLocaleString("en")}` : k.count.toLocaleString("en"));
  const cancelled = html`<strong>${n(queued)} queued message${queued.count === 1 && !queued.capped ? " is" : "s are"} cancelled</strong>`;
  const kept = html`They stay in the outbox list, marked cancelled: “campaign archived”.`;
  const customers =
    active === 0
      ? "No customer is waiting for a further step."
      : active === 1
        ? "The one customer still in the series receives no further step."
        : `The ${active.toLocaleString("en")} customers still in the series receive no further step.`;
  const final = html`It is final: an archived campaign cannot be activated or edited again.`;
  const counts = html`It keeps its slug and still counts towards the ${String(p.campaignsPerOrg)} campaigns an organisation may have.`;
  return html`<ul>
<li>${cancelled} (waiting to be sent, retrying, or parked while the campaign is paused). ${kept}</li>
<li>${customers} Enrolments stay listed.</li>
<li>Nobody can be enrolled any more: not by hand, the API, the SDK, the automation tools or the audience rule.</li>
<li>${final} ${counts}</li>
<li>Mail already sent is not affected; a message being handed to the mail server at this very moment may still go out.</li>
</ul>`;
}
