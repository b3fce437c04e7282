// Dashboard: the inbox (inbox:view to read, inbox:manage to answer and triage). The ticket list
// (inbox-list.ts), one ticket with its thread and forms (inbox-ticket.ts), and the reply, note and
// triage posts. Every read and write goes through src/inbox/tickets.ts, as /api/tickets does, so
// the history, activity log and webhooks are the same whichever way a change comes in.
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { addTicketMessage, findTicket, type InboxActor, type Ticket, TICKET_LIMITS, updateTicket } from "../inbox/tickets.ts";
import { type DashboardContext, type DashboardDeps, formBody, formValues, redirect, submitForm, withMember } from "./kit/index.ts";
import { bodyProblem, serviceErrors, triagePatch } from "./inbox-forms.ts";
import { listPage } from "./inbox-list.ts";
import { customersByIds } from "../inbox/customer-profiles.ts";
import { findSavedReply } from "../inbox/saved-replies.ts";
import { fillSavedReply } from "../inbox/saved-reply-template.ts";
import { ticketPage } from "./inbox-ticket.ts";
import { isTranslationError } from "../translation/errors.ts";
import { sendReply } from "../translation/reply.ts";

function actorOf(ctx: DashboardContext): InboxActor {
  return { kind: "member", memberId: ctx.principal.member.id };
}

async function ticketOr404(deps: Pick<Deps, "db">, orgId: string, ref: string): Promise<Ticket> {
  const ticket = await findTicket(deps, orgId, ref);
  if (!ticket) throw AppError.notFound("No such ticket.");
  return ticket;
}

/** A reply or an internal note: the text next to its field when it is refused (a closed ticket: 409). */
async function addMessage(ctx: DashboardContext, kind: "reply" | "note", ref: string, body: unknown): Promise<Response> {
  const ticket = await ticketOr404(ctx.deps, ctx.orgId, ref);
  const values = formValues(body);
  const resolve = kind === "reply" && values.then === "resolve";
  return submitForm({
    values,
    validate: (v) => {
      const text = v[kind] ?? "";
      const problem = bodyProblem(text);
      return { input: text, errors: problem ? { [kind]: problem } : {} };
    },
    call: async (text): Promise<AppError | null> => {
      if (kind === "note") await addTicketMessage(ctx.deps, { orgId: ctx.orgId, actor: actorOf(ctx), ticketId: ticket.id, kind, body: text });
      else
        try {
          // "Send in the customer's language": translated first; a translator's refusal or outage sends nothing.
          await sendReply(ctx.deps, { orgId: ctx.orgId, actor: actorOf(ctx), ticket, body: text, translate: values.translate === "on" });
        } catch (error) {
          if (isTranslationError(error)) return error; // shown beside the reply, its text kept
          throw error;
        }
      // "Send and resolve": the reply goes out first, then the ticket is resolved.
      if (resolve) await updateTicket(ctx.deps, { orgId: ctx.orgId, actor: actorOf(ctx), ticketId: ticket.id, patch: { status: "resolved" } });
      return null;
    },
    done: (failed) =>
      failed
        ? ticketPage(ctx, ticket, { reply: { values, errors: { reply: failed.message }, status: failed.status } })
        : redirect(
            ctx.deps,
            `/dashboard/inbox/${ticket.number}`,
            kind === "note" ? "Internal note added." : resolve ? "Reply sent; ticket resolved." : "Reply sent.",
          ),
    render: ({ values, errors }) => ticketPage(ctx, ticket, { [kind]: { values, errors } }),
    refused: (error) => (error.status === 409 ? { [kind]: error.message } : error.status === 400 ? serviceErrors(error, kind) : null),
  });
}

/** Without the script: the chosen saved reply, variables filled in, is added to the reply field (nothing is sent). */
async function insertSaved(ctx: DashboardContext, ref: string, body: unknown): Promise<Response> {
  const ticket = await ticketOr404(ctx.deps, ctx.orgId, ref);
  const values = formValues(body);
  const chosen = values.saved_reply ? await findSavedReply(ctx.deps, ctx.orgId, values.saved_reply) : null;
  if (!chosen) return ticketPage(ctx, ticket, { reply: { values, errors: { saved_reply: "Choose a saved reply from the list." } } });
  const customer = ticket.endUserId ? (await customersByIds(ctx.deps, ctx.orgId, [ticket.endUserId])).get(ticket.endUserId) : undefined;
  const me = ctx.principal.member;
  const text = fillSavedReply(chosen.body, { customerName: customer?.name ?? null, ticketNumber: ticket.number, agentName: me.name });
  const before = values.reply?.trimEnd() ?? "";
  return ticketPage(ctx, ticket, { reply: { values: { ...values, reply: before ? `${before}\n\n${text}` : text }, errors: {}, inserted: true } });
}

async function triage(ctx: DashboardContext, ref: string, body: unknown): Promise<Response> {
  const ticket = await ticketOr404(ctx.deps, ctx.orgId, ref);
  const values = formValues(body);
  // A form rendered before someone else's change would silently undo it: refuse it, keep the values.
  if (values.version !== undefined && values.version !== ticket.updatedAt.toISOString())
    return ticketPage(ctx, ticket, { triage: { values, errors: {}, conflict: true } });
  return submitForm({
    values,
    validate: triagePatch,
    call: (patch) => updateTicket(ctx.deps, { orgId: ctx.orgId, actor: actorOf(ctx), ticketId: ticket.id, patch }),
    done: () => redirect(ctx.deps, `/dashboard/inbox/${ticket.number}`, "Triage saved."),
    render: ({ errors }) => ticketPage(ctx, ticket, { triage: { values, errors } }),
    refused: (error) => (error.status === 400 ? serviceErrors(error, "tags") : null),
  });
}

const ListQuery = t.Object({
  status: t.Optional(t.String({ maxLength: 20 })),
  assignee: t.Optional(t.String({ maxLength: 36 })),
  team: t.Optional(t.String({ maxLength: TICKET_LIMITS.team })),
  language: t.Optional(t.String({ maxLength: 3 })),
  tag: t.Optional(t.String({ maxLength: TICKET_LIMITS.tag })),
  q: t.Optional(t.String({ maxLength: TICKET_LIMITS.text })),
  customer: t.Optional(t.String({ maxLength: 36 })),
  cursor: t.Optional(t.String({ maxLength: 64 })),
});
const Ref = t.Object({ ref: t.String({ maxLength: 64 }) });
/** Form bodies: every field a bounded string (the page reports what is wrong with each). */
const FormBody = formBody({ text: 40_000, item: 300, items: 50 });

export function inboxPages(deps: DashboardDeps) {
  return new Elysia({ name: "dashboard-inbox" })
    .get("/dashboard/inbox", ({ request, query }) => withMember(deps, request, "inbox:view", (ctx) => listPage(ctx, query)), { query: ListQuery })
    .get(
      "/dashboard/inbox/:ref",
      ({ request, params }) => withMember(deps, request, "inbox:view", async (ctx) => ticketPage(ctx, await ticketOr404(deps, ctx.orgId, params.ref))),
      { params: Ref },
    )
    .post(
      "/dashboard/inbox/:ref/reply",
      ({ request, params, body }) => withMember(deps, request, "inbox:manage", (ctx) => addMessage(ctx, "reply", params.ref, body)),
      { params: Ref, body: FormBody },
    )
    .post(
      "/dashboard/inbox/:ref/insert",
      ({ request, params, body }) => withMember(deps, request, "inbox:manage", (ctx) => insertSaved(ctx, params.ref, body)),
      { params: Ref, body: FormBody },
    )
    .post(
      "/dashboard/inbox/:ref/note",
      ({ request, params, body }) => withMember(deps, request, "inbox:manage", (ctx) => addMessage(ctx, "note", params.ref, body)),
      { params: Ref, body: FormBody },
    )
    .post("/dashboard/inbox/:ref/triage", ({ request, params, body }) => withMember(deps, request, "inbox:manage", (ctx) => triage(ctx, params.ref, body)), {
      params: Ref,
      body: FormBody,
    });
}
