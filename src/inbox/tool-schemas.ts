// The JSON Schemas of the inbox tools (src/inbox/tools.ts) as MCP's tools/list carries them: the
// arguments they share, bounded as the dashboard's API bounds them (TICKET_LIMITS), and the
// outputSchema (2025-06-18+) of what they return — a ticket as ticketView gives it, with its
// customer's summary.
import { Arg } from "../tools/define.ts";
import { PRIORITIES, STATUSES, TICKET_LIMITS } from "./tickets.ts";

export const ticketRef = Arg.string({ minLength: 1, maxLength: 64, description: "The ticket's id, or its number (`42` or `#42`)." });
export const body = Arg.string({ minLength: 1, maxLength: TICKET_LIMITS.body });
export const status = Arg.choice(STATUSES);
export const priority = Arg.choice(PRIORITIES);
export const team = Arg.string({ maxLength: TICKET_LIMITS.team });

const nullable = (type: string) => ({ type: [type, "null"] });
/** outputSchema (2025-06-18+): a ticket as ticketView gives it, with its customer's summary. */
export const ticketOutput = {
  type: "object" as const,
  properties: {
    id: { type: "string" },
    number: { type: "integer" },
    subject: { type: "string" },
    status: { type: "string" },
    priority: { type: "string" },
    tags: { type: "array", items: { type: "string" } },
    customer: {
      anyOf: [
        { type: "object", properties: { id: { type: "string" }, email: nullable("string"), name: { type: "string" } }, required: ["id"] },
        { type: "null" },
      ],
    },
  },
  required: ["id", "number", "subject", "status", "priority", "tags", "customer"],
};
export const ticketsOutput = {
  type: "object" as const,
  properties: { tickets: { type: "array", items: ticketOutput }, next_cursor: { type: "string" } },
  required: ["tickets"],
};
export const ticketDetailOutput = {
  ...ticketOutput,
  properties: { ...ticketOutput.properties, messages: { type: "array", items: { type: "object" } }, history: { type: "array" } },
  required: [...ticketOutput.required, "messages"],
};
