// Who is enrolled in a campaign: filtered by state, in cursor pages, with a form to enrol or remove
// a customer by hand and a remove button on each row (campaign-enrol.ts posts them).
import { type Campaign } from "../campaigns/model.ts";
import { listEnrolments } from "../campaigns/queries.ts";
import { html } from "../html/html.ts";
import { cursorPager, type DashboardContext, errorSummary, field, listTable, type Refused, select, shellPage, submit, when } from "./kit/index.ts";
import { CUSTOMER_REF_MAX, customerLabel } from "./campaign-customers.ts";

const ENROLMENT_STATES = ["active", "completed", "removed", "unsubscribed"] as const;
const ENROLMENT_PAGE = 25;

export function enrolmentsPath(c: Campaign, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  if (query.state) params.set("state", query.state);
  if (query.cursor) params.set("cursor", query.cursor);
  const qs = params.toString();
  return `/dashboard/campaigns/${c.slug}/enrolments${qs ? `?${qs}` : ""}`;
}

export async function enrolmentsPage(ctx: DashboardContext, c: Campaign, query: Record<string, string | undefined>, form?: Refused): Promise<Response> {
  const state = (ENROLMENT_STATES as readonly string[]).includes(query.state ?? "") ? (query.state as (typeof ENROLMENT_STATES)[number]) : undefined;
  const page = await listEnrolments(ctx.deps, ctx.orgId, c.id, { state, cursor: query.cursor || undefined, limit: ENROLMENT_PAGE });
  const manage = ctx.can("automation:manage") && c.status !== "archived";
  const v = form?.values ?? {};
  const e = form?.errors ?? {};
  // Each row's remove button posts the customer's id and comes back to this page of the list.
  const removeButton = (customerId: string, label: string) =>
    html`<form method="post" action="/dashboard/campaigns/${c.slug}/enrolments" class="inline"><input type="hidden" name="do" value="remove"><input type="hidden" name="customer" value="${customerId}">${state ? html`<input type="hidden" name="state" value="${state}">` : ""}${query.cursor ? html`<input type="hidden" name="cursor" value="${query.cursor}">` : ""}<button type="submit" class="danger small" aria-label="Remove ${label} from this campaign">Remove</button></form>`;
  const body = html`<p><a href="/dashboard/campaigns/${c.slug}">← ${c.name}</a></p>
<h1>Enrolled in ${c.name}</h1>
${
  manage
    ? html`<section class="panel" aria-labelledby="enrol-h"><h2 id="enrol-h">Enrol or remove a customer</h2>
<p class="muted">${c.status === "active" ? "An enrolled customer receives the steps from the first one, each at its delay; enrolling someone again never resends a step, and someone removed earlier continues where they stopped." : `The campaign is ${c.status}: customers can be enrolled once it is active. Removing works now.`} Only verified customers with an email address are mailed; whoever unsubscribed never is.</p>
${errorSummary(e)}
<form method="post" action="/dashboard/campaigns/${c.slug}/enrolments" novalidate class="toolbar">
${field({ name: "customer", label: "Customer", value: v.customer, error: e.customer, maxLength: CUSTOMER_REF_MAX, hint: "Email address, our id or your external id." })}
${submit("Enrol", { name: "do", value: "enrol", busy: "Enrolling…" })}
${submit("Remove", { name: "do", value: "remove", kind: "danger" })}
</form></section>`
    : ""
}
<form method="get" action="/dashboard/campaigns/${c.slug}/enrolments" class="toolbar" aria-label="Filter enrolments">
${select({ name: "state", label: "State", value: state ?? "", options: [{ value: "", label: "All" }, ...ENROLMENT_STATES.map((s) => ({ value: s, label: s }))] })}
<button type="submit" class="secondary">Filter</button>
</form>
${listTable({
  caption: "Enrolments",
  columns: ["Customer", "State", "Enrolled", "Last step", "How", ...(manage ? [{ label: "Actions", hidden: true as const }] : [])],
  rows: page.enrolments,
  row: (en) => {
    const label = customerLabel(en.customer as { name?: string; email?: string | null });
    const email = "email" in en.customer && en.customer.email && en.customer.email !== label ? en.customer.email : "";
    return html`<tr><td><a href="/dashboard/customers/${en.customer.id}">${label}</a>${email ? html` <span class="muted">${email}</span>` : ""}</td><td><span class="badge${en.state === "active" ? " ok" : en.state === "unsubscribed" ? " warn" : ""}">${en.state}</span></td><td>${when(en.enrolled_at)}</td><td>${when(en.last_step_at)}</td><td>${en.source}</td>${manage ? html`<td>${en.state === "active" || en.state === "completed" ? removeButton(en.customer.id, label) : ""}</td>` : ""}</tr>`;
  },
  empty: `Nobody${state ? " in this state" : " yet"}.`,
})}
${cursorPager(`/dashboard/campaigns/${c.slug}/enrolments`, query, page.next_cursor)}`;
  return shellPage(ctx, { title: `Enrolled · ${c.name}`, active: "campaigns", body, status: form?.status ?? 200 });
}
