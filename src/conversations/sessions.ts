// Chat sessions (README "Chat"; docs/interface.md 2.5 and D).
//
//   * A session id is `cs_` + 256 random bits (base64url), minted by us when the request has none
//     or names one we do not know. Only its SHA-256 is stored: for an anonymous visitor the id
//     alone lets its holder read and continue the conversation, so it is a bearer secret.
//   * A session is bound to its org and to the customer (end user) or anonymous visitor that
//     started it (docs/decisions.md "Chat sessions"):
//       - another org presenting the id finds nothing (every lookup filters on org_id) and gets a
//         fresh session, exactly as for an id that never existed: nothing tells it the id is used;
//       - another customer of the same org, or an anonymous visitor presenting a customer's
//         session, is refused with 403 `session_forbidden` — the session stays the owner's and the
//         caller learns only that this id is not theirs (ids are unguessable, so this reveals nothing
//         that could be enumerated);
//       - an anonymous visitor's session is taken over by the first identified customer presenting
//         it (the visitor signed in mid-conversation: the holder of the id is the visitor). From
//         then on it is that customer's.
//   * The server's history wins: `conversation_history` from the client only seeds a session we
//     did not know, and its turns are stored as `reported` (never as the agent's words).
import { and, eq, getTableColumns, inArray, type Placeholder, sql } from "drizzle-orm";
import { prepared } from "../db/prepared.ts";
import type { Db, Tx } from "../db/client.ts";
import { mintToken, sha256Hex } from "../crypto/tokens.ts";
import { conversationMessages, conversations } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { assertFreeForm } from "../http/free-form.ts";
import type { KnowledgeState } from "../knowledge/synonyms.ts";

export type Conversation = typeof conversations.$inferSelect;

export const SESSION_PREFIX = "cs_";
/** The most client-reported earlier turns kept when seeding a new session (the latest ones). */
export const SEED_TURNS_MAX = 20;

/** Who is chatting: a customer (end user id) or an anonymous visitor (null). */
export interface ChatParty {
  endUserId: string | null;
}

/** A `conversation_history` item, normalised by the route: who the client says spoke, and the text. */
export interface ReportedTurn {
  speaker: "customer" | "agent";
  text: string;
}

/** A `context` entry (docs/interface.md 2.5, ContextEntry). */
export interface ContextEntry {
  label: string;
  type?: string;
  value: unknown;
}

const hashOf = (sessionId: string) => sha256Hex(sessionId);

/**
 * The session `sessionId` names in `orgId`, checked against who is chatting; null when the org has
 * no such session (the caller then starts a fresh one). Throws 403 when it belongs to someone else.
 * Takes over an anonymous session for an identified customer (see above).
 */
export async function findSession(deps: Pick<Deps, "db" | "now">, orgId: string, sessionId: string, party: ChatParty): Promise<Conversation | null> {
  const [found] = await deps.db
    .select()
    .from(conversations)
    .where(and(eq(conversations.orgId, orgId), eq(conversations.sessionHash, hashOf(sessionId))));
  if (!found) return null;
  if (found.anonymous) {
    if (party.endUserId === null) return found;
    const [claimed] = await deps.db
      .update(conversations)
      .set({ endUserId: party.endUserId, anonymous: false, updatedAt: deps.now() })
      .where(and(eq(conversations.orgId, orgId), eq(conversations.id, found.id), eq(conversations.anonymous, true)))
      .returning();
    if (claimed) return claimed;
    // Someone else claimed it a moment ago: check against them.
    return findSession(deps, orgId, sessionId, party);
  }
  if (party.endUserId !== null && found.endUserId === party.endUserId) return found;
  throw new AppError(403, "session_forbidden", "This session belongs to another customer: start a new conversation without session_id.");
}

/**
 * The conversations that chat session ids name in `orgId` (session id → conversation id), looked
 * up by hash only: nothing is bound or taken over. Whoever stores a reference to a chat (a tracked
 * event) keeps the conversation's id, never the session id, which is a bearer secret (see the top
 * of this file). Ids this org has no session for are absent from the map.
 */
export async function conversationsOfSessions(db: Db | Tx, orgId: string, sessionIds: readonly string[]): Promise<Map<string, string>> {
  const byHash = new Map([...new Set(sessionIds)].map((id) => [hashOf(id), id]));
  if (byHash.size === 0) return new Map();
  const rows = await db
    .select({ id: conversations.id, hash: conversations.sessionHash })
    .from(conversations)
    .where(and(eq(conversations.orgId, orgId), inArray(conversations.sessionHash, [...byHash.keys()])));
  return new Map(rows.map((r) => [byHash.get(r.hash)!, r.id]));
}

/** The session `sessionId` names in `orgId`, read only (no take-over): the live conversation routes decide who may read it. */
export async function sessionOf(deps: Pick<Deps, "db">, orgId: string, sessionId: string): Promise<Conversation | null> {
  const [found] = await deps.db
    .select()
    .from(conversations)
    .where(and(eq(conversations.orgId, orgId), eq(conversations.sessionHash, hashOf(sessionId))));
  return found ?? null;
}

export interface NewSession {
  orgId: string;
  party: ChatParty;
  agentId: string;
  mode: string;
  context?: Record<string, ContextEntry>;
  /** Client-reported earlier turns: stored as `reported`, the latest SEED_TURNS_MAX of them. */
  reported?: readonly ReportedTurn[];
  /** The customer's first message, stored in the same transaction (one commit for a new conversation). */
  firstMessage?: { text: string; images: string[]; mode: string };
  /** The customer's language (ISO 639-1, src/kit/language.ts customerLanguage). */
  language?: string | null;
}

/** The new conversation's row as it comes back, with the org's knowledge state (src/knowledge/synonyms.ts). */
const returnedWith = (orgId: string | Placeholder) => ({
  ...getTableColumns(conversations),
  docsVersion: sql<string>`coalesce((select docs_version::text from knowledge_settings where org_id = ${orgId}), '0')`,
  synonyms: sql<string>`coalesce((select synonyms::text from knowledge_settings where org_id = ${orgId}), '[]')`,
});

const SESSION_COLUMNS = [
  "id",
  "orgId",
  "sessionHash",
  "endUserId",
  "anonymous",
  "agentId",
  "mode",
  "context",
  "language",
  "messageCount",
  "createdAt",
  "updatedAt",
] as const;
const FIRST_COLUMNS = ["id", "orgId", "conversationId", "role", "text", "images", "mode", "createdAt"] as const;
type SessionRow = Pick<typeof conversations.$inferInsert, (typeof SESSION_COLUMNS)[number]>;
const placeholders = <K extends string>(keys: readonly K[], prefix = "") =>
  Object.fromEntries(keys.map((k) => [k, sql.placeholder(`${prefix}${k}`)])) as Record<K, Placeholder>;
/** A first message's values under the names its prepared statement gives them (`m_`…). */
const placeholdersOf = (message: typeof conversationMessages.$inferInsert) => Object.fromEntries(FIRST_COLUMNS.map((k) => [`m_${k}`, message[k]]));

const newSession = (db: Db) =>
  db
    .insert(conversations)
    .values(placeholders(SESSION_COLUMNS) as unknown as SessionRow)
    .returning(returnedWith(sql.placeholder("orgId")))
    .prepare("session_new");

const newSessionWithMessage = (db: Db) =>
  db
    .with(
      db.$with("messages").as(
        db
          .insert(conversationMessages)
          .values(placeholders(FIRST_COLUMNS, "m_") as unknown as typeof conversationMessages.$inferInsert)
          .returning({ id: conversationMessages.id }),
      ),
    )
    .insert(conversations)
    .values(placeholders(SESSION_COLUMNS) as unknown as SessionRow)
    .returning(returnedWith(sql.placeholder("orgId")))
    .prepare("session_new_first");

/** Starts a session; returns its row and the id to hand back (the only time the id exists in clear). */
export async function createSession(
  deps: Pick<Deps, "db" | "now" | "statements">,
  input: NewSession,
): Promise<{ conversation: Conversation; sessionId: string; knowledge: KnowledgeState }> {
  const context = input.context ?? {};
  assertFreeForm(context, "/context");
  const sessionId = mintToken(SESSION_PREFIX);
  const now = deps.now();
  const reported = (input.reported ?? []).slice(-SEED_TURNS_MAX);
  const first = input.firstMessage;
  const id = crypto.randomUUID();
  // One multi-row insert; time-ordered ids keep the rows in this order.
  const messages: (typeof conversationMessages.$inferInsert)[] = reported.map((turn) => ({
    id: Bun.randomUUIDv7(),
    orgId: input.orgId,
    conversationId: id,
    role: "reported" as const,
    reportedSpeaker: turn.speaker,
    text: turn.text,
    createdAt: now,
  }));
  if (first)
    messages.push({
      id: Bun.randomUUIDv7(),
      orgId: input.orgId,
      conversationId: id,
      role: "customer",
      text: first.text,
      images: first.images,
      mode: first.mode,
      createdAt: now,
    });
  const row = {
    id,
    orgId: input.orgId,
    sessionHash: hashOf(sessionId),
    endUserId: input.party.endUserId,
    anonymous: input.party.endUserId === null,
    agentId: input.agentId,
    mode: input.mode,
    context,
    language: input.language ?? null,
    messageCount: messages.length,
    createdAt: now,
    updatedAt: now,
  };
  // One statement (one round trip, one commit): the messages go in a data-modifying CTE, which
  // PostgreSQL always runs to completion; their foreign key is checked at the statement's end.
  // The org's knowledge state rides on it: a chat turn needs nothing else read (src/conversations/turn-store.ts).
  // The common shapes — a first message alone, or nothing — are built once (src/db/prepared.ts):
  // building this insert through the query builder cost more of a turn's CPU than anything else it does.
  const [inserted] =
    messages.length === 0
      ? await prepared(deps, "session_new", newSession).execute(row)
      : messages.length === 1 && !reported.length
        ? await prepared(deps, "session_new_first", newSessionWithMessage).execute({ ...row, ...placeholdersOf(messages[0]!) })
        : await deps.db
            .with(deps.db.$with("messages").as(deps.db.insert(conversationMessages).values(messages).returning({ id: conversationMessages.id })))
            .insert(conversations)
            .values(row)
            .returning(returnedWith(row.orgId));
  const { docsVersion, synonyms, ...conversation } = inserted!;
  return { conversation, sessionId, knowledge: { docsVersion: Number(docsVersion), synonyms } };
}

/** Merges the request's context into the session's (the request wins on conflict) and records the mode. */
export async function updateSession(
  deps: Pick<Deps, "db" | "now">,
  conversation: Conversation,
  patch: { context?: Record<string, ContextEntry>; mode: string; language?: string | null },
): Promise<Conversation> {
  const context = patch.context ? { ...conversation.context, ...patch.context } : conversation.context;
  if (patch.context) assertFreeForm(context, "/context");
  const language = patch.language ?? conversation.language;
  if (!patch.context && patch.mode === conversation.mode && language === conversation.language) return conversation;
  const [row] = await deps.db
    .update(conversations)
    .set({ context, mode: patch.mode, language, updatedAt: deps.now() })
    .where(and(eq(conversations.orgId, conversation.orgId), eq(conversations.id, conversation.id)))
    .returning();
  return row!;
}
