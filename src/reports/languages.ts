// A report's breakdown by language (README "Reports"): the period's conversations by the customer's
// language (`conversations.language`) with the same judgements as the report's own figures
// (src/reports/figures.ts `outcomes`), and its tickets by theirs (`tickets.language`). A row whose
// language is not known is counted as "unknown". Two grouped queries, both engines.
import { sql } from "drizzle-orm";
import { queryRows } from "../db/client.ts";
import type { Deps } from "../deps.ts";
import { conversationScope, num, outcomes, type ReportFilter, ticketScope } from "./figures.ts";

export const UNKNOWN_LANGUAGE = "unknown";

export interface LanguageFigures {
  /** ISO 639-1, or "unknown". */
  language: string;
  conversations: number;
  ai_resolved_confirmed: number;
  ai_resolved_assumed: number;
  handed_off: number;
  tickets: number;
}

/** The period's figures per language, most conversations first (then most tickets, then by code). */
export async function figuresByLanguage(deps: Pick<Deps, "db" | "now">, f: ReportFilter): Promise<LanguageFigures[]> {
  const judged = outcomes(deps.now().toISOString());
  const [conversations, tickets] = await Promise.all([
    queryRows<Record<string, unknown>>(
      deps.db,
      sql`select coalesce(c.language, ${UNKNOWN_LANGUAGE}) as language, count(*)::int as conversations,
        count(*) filter (where ${judged.confirmed})::int as confirmed,
        count(*) filter (where ${judged.assumed})::int as assumed,
        count(*) filter (where ${judged.handedOff})::int as handed_off
      from conversations c where ${conversationScope(f, "c")} group by 1`,
    ),
    queryRows<{ language: string; n: number }>(
      deps.db,
      sql`select coalesce(t.language, ${UNKNOWN_LANGUAGE}) as language, count(*)::int as n from tickets t where ${ticketScope(f, "created_at")} group by 1`,
    ),
  ]);
  const rows = new Map<string, LanguageFigures>();
  const of = (language: string) => {
    let row = rows.get(language);
    if (!row) {
      row = { language, conversations: 0, ai_resolved_confirmed: 0, ai_resolved_assumed: 0, handed_off: 0, tickets: 0 };
      rows.set(language, row);
    }
    return row;
  };
  for (const c of conversations) {
    const row = of(String(c.language));
    row.conversations = num(c.conversations);
    row.ai_resolved_confirmed = num(c.confirmed);
    row.ai_resolved_assumed = num(c.assumed);
    row.handed_off = num(c.handed_off);
  }
  for (const t of tickets) of(t.language).tickets = num(t.n);
  return [...rows.values()].sort(
    (a, b) => b.conversations - a.conversations || b.tickets - a.tickets || (a.language < b.language ? -1 : a.language > b.language ? 1 : 0),
  );
}
