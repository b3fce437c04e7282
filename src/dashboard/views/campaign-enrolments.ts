// Who is enrolled in a campaign: filtered by state, in cursor pages, with a form to enrol or remove
// a customer by hand and a remove button on each row (campaign-enrol.ts posts them).
import { type Html, html } from "../../html/html.ts";
import { cursorPager, errorSummary, field, type FieldErrors, type FormValues, listTable, select, submit, when } from "../kit/index.ts";
import type { Campaign } from "../../campaigns/model.ts";
import type { listEnrolments } from "../../campaigns/queries.ts";

type Enrolment = Awaited<ReturnType<typeof listEnrolments>>["enrolments"][number];

export interface EnrolmentRow {
  enrolment: Enrolment;
  /** The customer as the page names them. */
  label: string;
}

export interface CampaignEnrolmentsProps {
  campaign: Campaign;
  /** The states the filter offers, and the one chosen. */
  states: readonly string[];
  state: string | undefined;
  query: Record<string, string | undefined>;
  rows: readonly EnrolmentRow[];
  nextCursor: string | null;
  manage: boolean;
  values: FormValues;
  errors: FieldErrors;
  /** The longest customer reference the form takes. */
  refMax: number;
}

// Each row's remove button posts the customer's id and comes back to this page of the list.
function removeButton(p: CampaignEnrolmentsProps, customerId: string, label: string): Html {
  const state = p.state ? html`<input type="hidden" name="state" value="${p.state}">` : "";
  const cursor = p.query.cursor ? html`<input type="hidden" name="cursor" value="${p.query.cursor}">` : "";
  const button = html`<button type="submit" class="danger small" aria-label="Remove ${label} from this campaign">Remove</button>`;
  const hidden = html`<input type="hidden" name="do" value="remove"><input type="hidden" name="customer" value="${customerId}">`;
  return html`<form method="post" action="/dashboard/campaigns/${p.campaign.slug}/enrolments" class="inline">${hidden}${state}${cursor}${button}</form>`;
}

function enrolmentRow(p: CampaignEnrolmentsProps, { enrolment: en, label }: EnrolmentRow): Html {
  const email = "email" in en.customer && en.customer.email && en.customer.email !== label ? en.customer.email : "";
  const who = html`<td><a href="/dashboard/customers/${en.customer.id}">${label}</a>${email ? html` <span class="muted">${email}</span>` : ""}</td>`;
  const badge = html`<span class="badge${en.state === "active" ? " ok" : en.state === "unsubscribed" ? " warn" : ""}">${en.state}</span>`;
  const removable = en.state === "active" || en.state === "completed";
  const remove = p.manage ? html`<td>${removable ? removeButton(p, en.customer.id, label) : ""}</td>` : "";
  return html`<tr>${who}<td>${badge}</td><td>${when(en.enrolled_at)}</td><td>${when(en.last_step_at)}</td><td>${en.source}</td>${remove}</tr>`;
}

function enrolForm(p: CampaignEnrolmentsProps): Html {
  const c = p.campaign;
  const { values: v, errors: e } = p;
  const how =
    c.status === "active"
      ? "An enrolled customer receives the steps from the first one, each at its delay; " +
        "enrolling someone again never resends a step, and someone removed earlier continues where they stopped."
      : `The campaign is ${c.status}: customers can be enrolled once it is active. Removing works now.`;
  const hint = "Email address, our id or your external id.";
  return html`<section class="panel" aria-labelledby="enrol-h"><h2 id="enrol-h">Enrol or remove a customer</h2>
<p class="muted">${how} Only verified customers with an email address are mailed; whoever unsubscribed never is.</p>
${errorSummary(e)}
<form method="post" action="/dashboard/campaigns/${c.slug}/enrolments" novalidate class="toolbar">
${field({ name: "customer", label: "Customer", value: v.customer, error: e.customer, maxLength: p.refMax, hint })}
${submit("Enrol", { name: "do", value: "enrol", busy: "Enrolling…" })}
${submit("Remove", { name: "do", value: "remove", kind: "danger" })}
</form></section>`;
}

export function CampaignEnrolments(p: CampaignEnrolmentsProps): Html {
  const c = p.campaign;
  const states = [{ value: "", label: "All" }, ...p.states.map((s) => ({ value: s, label: s }))];
  const table = listTable({
    caption: "Enrolments",
    columns: ["Customer", "State", "Enrolled", "Last step", "How", ...(p.manage ? [{ label: "Actions", hidden: true as const }] : [])],
    rows: p.rows,
    row: (r) => enrolmentRow(p, r),
    empty: `Nobody${p.state ? " in this state" : " yet"}.`,
  });
  return html`<p><a href="/dashboard/campaigns/${c.slug}">← ${c.name}</a></p>
<h1>Enrolled in ${c.name}</h1>
${p.manage ? enrolForm(p) : ""}
<form method="get" action="/dashboard/campaigns/${c.slug}/enrolments" class="toolbar" aria-label="Filter enrolments">
${select({ name: "state", label: "State", value: p.state ?? "", options: states })}
<button type="submit" class="secondary">Filter</button>
</form>
${table}
${cursorPager(`/dashboard/campaigns/${c.slug}/enrolments`, p.query, p.nextCursor)}`;
}
