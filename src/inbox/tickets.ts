// The support inbox's tickets, in one place for callers: the model (ticket-model.ts), input checks
// (ticket-checks.ts), views (ticket-views.ts), writes (ticket-writes.ts, the only writer of the
// ticket tables) and reads (ticket-queries.ts).
export * from "./ticket-model.ts";
export { checkCustomFields, normaliseTags } from "./ticket-checks.ts";
export * from "./ticket-views.ts";
export * from "./ticket-writes.ts";
export * from "./ticket-queries.ts";
