// The `members` table: people who sign in to the dashboard, one account across the orgs they
// belong to. Reads by id or address for every room that shows or checks a member, the writes of
// src/orgs/ (a new account, a name, an avatar, a password), and `memberCards`, the columns another
// owner may join with (docs/decisions.md "Storage behind each owner"). The password hash leaves
// this file only through `accountByEmail`, for sign-in and for proving an existing account.
import { eq } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/pg-core";
import type { Conn } from "../db/client.ts";
import { members } from "../db/schema/index.ts";

const cardColumns = { id: members.id, email: members.email, name: members.name, avatarUrl: members.avatarUrl };

/** A member's id, address, name and avatar, to join with; `as` names a second join of the same table (an inviter beside an invitee). */
export function memberCardsAs(as: string) {
  return new QueryBuilder().select(cardColumns).from(members).as(as);
}

/** `leftJoin(memberCards, eq(memberCards.id, …))`. */
export const memberCards = memberCardsAs("member_cards");

export interface MemberCard {
  id: string;
  email: string;
  name: string;
  avatarUrl: string | null;
}

/** A member by id, or null. */
export async function memberById(db: Conn, memberId: string): Promise<MemberCard | null> {
  const [row] = await db.select(cardColumns).from(members).where(eq(members.id, memberId));
  return row ?? null;
}

/** The language a member reads (ISO 639-1, set on their account page); null when they chose none (English) or are unknown. */
export async function memberLanguage(db: Conn, memberId: string): Promise<string | null> {
  const [row] = await db.select({ language: members.language }).from(members).where(eq(members.id, memberId));
  return row?.language ?? null;
}

/** A member by address (stored lower-cased: the caller normalises), or null. */
export async function memberByEmail(db: Conn, email: string): Promise<MemberCard | null> {
  const [row] = await db.select(cardColumns).from(members).where(eq(members.email, email));
  return row ?? null;
}

/** A member by address with their password hash, for sign-in and for proving an existing account; null when unknown. */
export async function accountByEmail(db: Conn, email: string): Promise<(MemberCard & { passwordHash: string }) | null> {
  const [row] = await db
    .select({ ...cardColumns, passwordHash: members.passwordHash })
    .from(members)
    .where(eq(members.email, email));
  return row ?? null;
}

/** A new account; null when the address is taken (a concurrent creation won: the caller refuses it as any claim on an existing account). */
export async function insertMember(db: Conn, account: { email: string; passwordHash: string; name?: string }): Promise<string | null> {
  const [row] = await db.insert(members).values(account).onConflictDoNothing({ target: members.email }).returning({ id: members.id });
  return row?.id ?? null;
}

/** Changes what a member sets for themselves (src/orgs/account.ts) or a new password (a reset, a change). */
export async function updateMember(
  db: Conn,
  memberId: string,
  change: Partial<Pick<typeof members.$inferInsert, "name" | "avatarUrl" | "passwordHash" | "language">> & { updatedAt: Date },
): Promise<void> {
  await db.update(members).set(change).where(eq(members.id, memberId));
}
