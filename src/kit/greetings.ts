// Hello in its forms, written once. The built-in model answers a bare greeting with one, a chat
// ticket's subject skips it (src/agents/pipeline/subject.ts), and the reports do not count it as a
// question (src/conversations/report-facts.ts, in SQL): each adds its own words around this list.

/**
 * The greetings (English), as an alternation that JavaScript's RegExp and PostgreSQL's POSIX regular
 * expressions both read the same way: plain words and groups, no `(?:`, no `\b`. (The reports'
 * migration backfilled with this very list: a new word here needs a migration to match.)
 */
export const GREETINGS = "hi|hello|hey|hiya|yo|good (morning|afternoon|evening)";

/** A line that is only a greeting (or "howdy"), with spaces and punctuation around it. */
export const GREETING_LINE = new RegExp(`^\\s*(${GREETINGS}|howdy)\\b[\\s!.,]*$`, "i");
