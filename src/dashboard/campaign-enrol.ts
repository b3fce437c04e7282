// Enrol or remove one customer by hand, through the same service functions as the API, then back
// to the list with what happened (the functions are idempotent; the message says whether anything
// changed). What stops it is said next to the customer field.
import { enrolCustomer, enrolmentOf, removeCustomer } from "../campaigns/enrolments.ts";
import { type Campaign } from "../campaigns/model.ts";
import { AppError } from "../errors.ts";
import { type DashboardContext, type FieldErrors, type Flash, type FormValues, redirect, submitForm } from "./kit/index.ts";
import { actor } from "./campaign-common.ts";
import { customerByRef, customerLabel, customerRef } from "./campaign-customers.ts";
import { enrolmentsPage, enrolmentsPath } from "./campaign-enrolments.ts";

function enrolInput(values: FormValues): { input: { action: "enrol" | "remove"; ref: string }; errors: FieldErrors } {
  const action = values.do === "enrol" || values.do === "remove" ? values.do : null;
  if (!action) return { input: { action: "enrol", ref: "" }, errors: { customer: "Choose Enrol or Remove." } };
  const named = customerRef(values.customer);
  return { input: { action, ref: named.ref }, errors: named.error ? { customer: named.error } : {} };
}

async function change(ctx: DashboardContext, c: Campaign, action: "enrol" | "remove", ref: string): Promise<Flash> {
  const user = await customerByRef(ctx.deps, ctx.orgId, ref);
  if (!user) throw AppError.notFound("No customer with this email address, id or external id.");
  const who = customerLabel(user);
  // Only for the message: what the enrolment was before.
  const before = await enrolmentOf(ctx.deps, ctx.orgId, c.id, user.id);
  if (action === "enrol") {
    const { enrolment, created } = await enrolCustomer(ctx.deps, { orgId: ctx.orgId, actor: actor(ctx), campaign: c, endUser: user, source: "api" });
    const text =
      enrolment.state === "unsubscribed"
        ? `${who} unsubscribed from your emails: recorded as unsubscribed, never mailed.`
        : created
          ? `${who} enrolled.`
          : before?.state === "removed" && enrolment.state === "active"
            ? `${who} enrolled again: they continue where they stopped, no step is sent twice.`
            : `${who} was already enrolled (${enrolment.state}); no step is sent twice.`;
    return { kind: enrolment.state === "unsubscribed" ? "error" : "ok", text };
  }
  const enrolment = await removeCustomer(ctx.deps, { orgId: ctx.orgId, actor: actor(ctx), campaign: c, endUser: user });
  if (!enrolment) throw AppError.notFound(`${who} is not enrolled in this campaign.`);
  const changed = before?.state === "active" || before?.state === "completed";
  return {
    kind: "ok",
    text: changed ? `${who} removed: no further step is sent, and their queued mail is cancelled.` : `${who} was already ${enrolment.state}: nothing changed.`,
  };
}

export function changeEnrolment(ctx: DashboardContext, c: Campaign, values: FormValues): Promise<Response> {
  const query = { state: values.state, cursor: values.cursor };
  return submitForm({
    values,
    validate: enrolInput,
    call: ({ action, ref }) => change(ctx, c, action, ref),
    done: (flash) => redirect(ctx.deps, enrolmentsPath(c, query), flash),
    render: (refused) => enrolmentsPage(ctx, c, query, refused),
    // No such customer or enrolment (404), not active (409), not verified (403): next to the field.
    refused: (error) => ([403, 404, 409].includes(error.status) ? { customer: error.message } : null),
  });
}
