// Saved replies (README "Inbox"): per-org snippets with variables, listed by name. Read with
// inbox:view, written with inbox:manage (the dashboard's Settings page, /api/saved-replies), listed
// to AI clients by the inbox_list_saved_replies tool. Variables are filled in when a reply is
// inserted, from the ticket, its customer and the member writing (src/inbox/saved-reply-template.ts,
// which also bounds them; checked here when a reply is saved).
import { and, asc, count, eq } from "drizzle-orm";
import { savedReplies } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { fail, requireText } from "./ticket-checks.ts";
import { TICKET_LIMITS } from "./ticket-model.ts";
import { TEMPLATE_LIMITS, templateProblems } from "./saved-reply-template.ts";

export const SAVED_REPLY_LIMITS = { name: 80, body: TICKET_LIMITS.body, perOrg: 200, ...TEMPLATE_LIMITS } as const;

export type SavedReply = typeof savedReplies.$inferSelect;

export function savedReplyView(r: SavedReply) {
  return { id: r.id, name: r.name, body: r.body, created_at: r.createdAt.toISOString(), updated_at: r.updatedAt.toISOString() };
}

export async function listSavedReplies(deps: Pick<Deps, "db">, orgId: string): Promise<SavedReply[]> {
  return deps.db.select().from(savedReplies).where(eq(savedReplies.orgId, orgId)).orderBy(asc(savedReplies.name)).limit(SAVED_REPLY_LIMITS.perOrg);
}

export async function findSavedReply(deps: Pick<Deps, "db">, orgId: string, id: string): Promise<SavedReply | null> {
  if (!isUuid(id)) return null;
  const [row] = await deps.db
    .select()
    .from(savedReplies)
    .where(and(eq(savedReplies.orgId, orgId), eq(savedReplies.id, id)));
  return row ?? null;
}

function checked(input: { name?: unknown; body?: unknown }, partial: boolean): { name?: string; body?: string } {
  const out: { name?: string; body?: string } = {};
  if (input.name !== undefined || !partial) {
    out.name = requireText("/name", input.name, SAVED_REPLY_LIMITS.name, { min: 1 }).trim();
    if (out.name === "") fail("/name", "must not be blank");
  }
  if (input.body !== undefined || !partial) {
    out.body = requireText("/body", input.body, SAVED_REPLY_LIMITS.body, { min: 1 });
    if (out.body.trim() === "") fail("/body", "must not be blank");
    const [problem] = templateProblems(out.body);
    if (problem) fail("/body", problem);
  }
  return out;
}

/** A name already taken in the org (SQLSTATE 23505, wherever drizzle wraps it) is a 409 `name_taken`. */
function taken(error: unknown): never {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++)
    if (e.code === "23505") throw new AppError(409, "name_taken", "A saved reply with this name already exists.");
  throw error;
}

export async function createSavedReply(deps: Pick<Deps, "db" | "now">, orgId: string, input: { name: unknown; body: unknown }): Promise<SavedReply> {
  const { name, body } = checked(input, false);
  const [{ n } = { n: 0 }] = await deps.db.select({ n: count() }).from(savedReplies).where(eq(savedReplies.orgId, orgId));
  if (Number(n) >= SAVED_REPLY_LIMITS.perOrg)
    throw new AppError(409, "limit_reached", `An organisation keeps at most ${SAVED_REPLY_LIMITS.perOrg} saved replies.`);
  const now = deps.now();
  const [row] = await deps.db.insert(savedReplies).values({ orgId, name: name!, body: body!, createdAt: now, updatedAt: now }).returning().catch(taken);
  return row!;
}

export async function updateSavedReply(
  deps: Pick<Deps, "db" | "now">,
  orgId: string,
  id: string,
  input: { name?: unknown; body?: unknown },
): Promise<SavedReply> {
  const patch = checked(input, true);
  if (!(await findSavedReply(deps, orgId, id))) throw AppError.notFound("No such saved reply.");
  const [row] = await deps.db
    .update(savedReplies)
    .set({ ...patch, updatedAt: deps.now() })
    .where(and(eq(savedReplies.orgId, orgId), eq(savedReplies.id, id)))
    .returning()
    .catch(taken);
  if (!row) throw AppError.notFound("No such saved reply.");
  return row;
}

export async function deleteSavedReply(deps: Pick<Deps, "db">, orgId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw AppError.notFound("No such saved reply.");
  const gone = await deps.db
    .delete(savedReplies)
    .where(and(eq(savedReplies.orgId, orgId), eq(savedReplies.id, id)))
    .returning({ id: savedReplies.id });
  if (gone.length === 0) throw AppError.notFound("No such saved reply.");
}
