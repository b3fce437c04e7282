// The variables of a saved reply (README "Inbox"; docs/decisions.md "Saved reply variables"):
// `{{customer.name}}`, `{{ticket.number}}`, `{{agent.name}}`, each with an optional fallback for a
// missing or blank value, `{{customer.name | "there"}}` (the campaign templates' notation). Any other
// `{{…}}` is the team's own placeholder and stays as written.
//
// Bounded for hostile templates: one regular expression whose every repetition has a fixed bound
// (no backtracking beyond a constant per position), a body of at most SAVED_REPLY_LIMITS.body
// characters (checked before this runs), at most `variables` openings `{{` in a saved body (refused
// with 400 beyond), and at most that many variables filled in at insert time (a body saved before
// the limit keeps the rest as written).
import { TEAM_NAME } from "./ticket-events.ts";

export const TEMPLATE_LIMITS = {
  /** `{{` openings in one saved reply, known variables or not. */
  variables: 50,
  /** Characters of a fallback between its quotes. */
  fallback: 100,
} as const;

export const SAVED_REPLY_VARIABLES = ["customer.name", "ticket.number", "agent.name"] as const;
const NAMES = SAVED_REPLY_VARIABLES.map((n) => n.replace(".", "\\.")).join("|");
const VARIABLE = new RegExp(`\\{\\{[ \\t]{0,8}(${NAMES})[ \\t]{0,8}(?:\\|[ \\t]{0,8}"([^"{}\\r\\n]{0,${TEMPLATE_LIMITS.fallback}})"[ \\t]{0,8})?\\}\\}`, "g");
/** A known variable's name right after `{{` that VARIABLE did not take: a fallback written wrong. */
const KNOWN_OPENING = new RegExp(`\\{\\{[ \\t]{0,8}(?:${NAMES})(?![a-z])`);

/** What is wrong with a body's variables (messages for its /body detail), empty when nothing is. */
export function templateProblems(body: string): string[] {
  const problems: string[] = [];
  const openings = body.split("{{").length - 1;
  if (openings > TEMPLATE_LIMITS.variables) problems.push(`may hold at most ${TEMPLATE_LIMITS.variables} variables ({{…}})`);
  else if (KNOWN_OPENING.test(body.replace(VARIABLE, "")))
    problems.push(
      `write a variable as {{customer.name}} or ` +
        `{{customer.name | "fallback"}} (a fallback of at most ${TEMPLATE_LIMITS.fallback} characters, without quotes or braces)`,
    );
  return problems;
}

export interface TemplateValues {
  customerName: string | null;
  ticketNumber: number;
  /** The member's display name; blank or null: the fallback, else what the widget shows the customer (TEAM_NAME), never their email. */
  agentName: string | null;
}

/** The body with its variables filled in, once each (a value is never read as a variable), the first TEMPLATE_LIMITS.variables only. */
export function fillSavedReply(body: string, values: TemplateValues): string {
  const customer = values.customerName?.trim() || null;
  const agent = values.agentName?.trim() || null;
  let filled = 0;
  return body.replace(VARIABLE, (whole, name: string, fallback: string | undefined) => {
    if (++filled > TEMPLATE_LIMITS.variables) return whole;
    if (name === "ticket.number") return String(values.ticketNumber);
    if (name === "customer.name") return customer ?? fallback ?? "";
    return agent ?? fallback ?? TEAM_NAME;
  });
}
