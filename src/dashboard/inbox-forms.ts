// What the inbox's forms ask for: a message body's problem, the triage form as the service's patch,
// and a service's 400 as field errors (its details name the field by JSON pointer).
import type { AppError } from "../errors.ts";
import { PRIORITIES, STATUSES, TICKET_LIMITS, type TicketPatch, type TicketPriority, type TicketStatus } from "../inbox/tickets.ts";
import { detailErrors, type FieldErrors, type FormValues } from "./kit/index.ts";

/** A message body's problem, checked before the service so the error sits next to the field. */
export function bodyProblem(text: string): string | undefined {
  if (text.trim() === "") return "Write something first.";
  if (text.length > TICKET_LIMITS.body) return `At most ${TICKET_LIMITS.body} characters (this has ${text.length}).`;
  return undefined;
}

/** The patch a triage form asks for, or the field errors that stop it. */
export function triagePatch(v: FormValues): { input: TicketPatch; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const patch: TicketPatch = {};
  if (v.subject !== undefined) {
    const subject = v.subject.trim();
    if (subject === "") errors.subject = "Enter a subject.";
    else if (subject.length > TICKET_LIMITS.subject) errors.subject = `At most ${TICKET_LIMITS.subject} characters.`;
    else patch.subject = subject;
  }
  if (v.status !== undefined) {
    if ((STATUSES as readonly string[]).includes(v.status)) patch.status = v.status as TicketStatus;
    else errors.status = "Choose a status from the list.";
  }
  if (v.priority !== undefined) {
    if ((PRIORITIES as readonly string[]).includes(v.priority)) patch.priority = v.priority as TicketPriority;
    else errors.priority = "Choose a priority from the list.";
  }
  if (v.team !== undefined) {
    const team = v.team.trim();
    if (team.length > TICKET_LIMITS.team) errors.team = `At most ${TICKET_LIMITS.team} characters.`;
    patch.team = team === "" ? null : team;
  }
  if (v.assignee !== undefined) patch.assigneeId = v.assignee === "" ? null : v.assignee;
  if (v.tags !== undefined) {
    const tags = v.tags
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (tags.length > TICKET_LIMITS.tags) errors.tags = `At most ${TICKET_LIMITS.tags} tags.`;
    else if (tags.some((tag) => tag.length > TICKET_LIMITS.tag)) errors.tags = `Each tag is at most ${TICKET_LIMITS.tag} characters.`;
    patch.tags = tags;
  }
  return { input: patch, errors };
}

/** A 400 from the service, as field errors: its details name the field by JSON pointer. */
export function serviceErrors(error: AppError, fallback: string): FieldErrors {
  return detailErrors(error, ([name]) => (name === "assignee_id" ? "assignee" : name === "body" || !name ? fallback : name), fallback, { plain: true });
}
