// POST /api/sdk/events as a plain function (README "Widget SDK"): a batch of behavioural events
// stored as one unit of work, each event on the customer its identity proves. Its own module
// because it is the SDK's one write of many rows at once, with identity rules of its own for a
// batch (the batch's user proven once, every other user_id claimed unverified together); the other
// /api/sdk calls are in src/sdk/service.ts.
import { conversationsOfSessions } from "../conversations/sessions.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { insertCustomerEvents } from "../customers/events.ts";
import { claimEndUsers } from "../customers/records.ts";
import { identitySettings, isAnonymous, proveIdentity, userTokenRequired, writeIdentity } from "./identity.ts";
import { SDK_LIMITS } from "./schemas.ts";

export interface EventInput {
  name: string;
  user_id?: string;
  anonymous_id?: string;
  session_id?: string;
  properties?: Record<string, unknown>;
  occurred_at?: string;
}

export interface EventsInput {
  events: EventInput[];
  user_id?: string;
  user_token?: string;
  anonymous_id?: string;
  session_id?: string;
}

/**
 * Stores a batch of events: all of them, or none (a bad event is a 400 naming it). Who each event
 * belongs to: the batch's user_id with its user_token (verified), any other user_id unverified
 * (refused when the org requires verification) — so an event never lands on a verified customer
 * without that customer's token.
 *
 * Atomic: every identity is checked before anything is written, then the customers the batch
 * names (created or updated) and its events are written in one transaction, so a batch that fails
 * at any point leaves nothing behind. Events are grouped by identity and each distinct identity is
 * resolved once: the verified batch user through writeIdentity, every unverified user_id together
 * (claimEndUsers: a fixed number of statements, not one round trip per event or per user).
 */
export async function recordEvents(deps: Pick<Deps, "cipher" | "db" | "now">, orgId: string, input: EventsInput): Promise<{ accepted: number }> {
  const now = deps.now();
  const latest = now.getTime() + SDK_LIMITS.futureSkewSeconds * 1000;
  const occurred = input.events.map((event, i) => {
    if (event.occurred_at === undefined) return now;
    const at = new Date(event.occurred_at);
    if (Number.isNaN(at.getTime()))
      throw AppError.badRequest("An event's occurred_at is not a date.", [{ path: `/events/${i}/occurred_at`, message: "must be an RFC 3339 date-time" }]);
    if (at.getTime() > latest)
      throw AppError.badRequest("An event's occurred_at is in the future.", [
        { path: `/events/${i}/occurred_at`, message: `must be at most ${SDK_LIMITS.futureSkewSeconds} s after the time of receipt` },
      ]);
    return at;
  });

  // Who: the batch's identity, proven (or refused) first; then every other user_id the events name.
  const batchUser = isAnonymous(input.user_id) ? undefined : input.user_id;
  const userOf = (event: EventInput) => {
    const userId = event.user_id ?? batchUser;
    return userId === undefined || isAnonymous(userId) ? undefined : userId;
  };
  const claimedAt = new Map<string, number>(); // an unverified user_id → the index of its first event
  input.events.forEach((event, i) => {
    const userId = userOf(event);
    if (userId !== undefined && userId !== batchUser && !claimedAt.has(userId)) claimedAt.set(userId, i);
  });
  const proving = batchUser !== undefined || input.user_token !== undefined;
  const settings = proving || claimedAt.size > 0 ? await identitySettings(deps, orgId) : { enabled: false, secrets: [] };
  const proof = proving ? await proveIdentity(settings, { user_id: input.user_id, user_token: input.user_token }, now) : undefined;
  if (settings.enabled && claimedAt.size > 0) {
    const [userId, i] = claimedAt.entries().next().value!;
    throw userTokenRequired([{ path: `/events/${i}/user_id`, message: `${JSON.stringify(userId)} is not the batch's user_id, so it has no user_token` }]);
  }
  // The batch's own user_id without a token (verification off) is one more unverified claim.
  const claimed = [...claimedAt.keys(), ...(batchUser !== undefined && !proof?.verified ? [batchUser] : [])];

  await deps.db.transaction(async (tx) => {
    const inTx = { ...deps, db: tx };
    const users = new Map<string, string>();
    for (const [userId, user] of await claimEndUsers(tx, orgId, claimed, now)) users.set(userId, user.id);
    if (batchUser !== undefined && proof?.verified) users.set(batchUser, (await writeIdentity(inTx, orgId, { user_id: batchUser }, proof, settings)).id);
    // A session id is a bearer secret: the event keeps the conversation it names, never the id (an
    // id this org has no session for links nothing).
    const sessionOf = (event: EventInput) => event.session_id ?? input.session_id;
    const chats = await conversationsOfSessions(
      tx,
      orgId,
      input.events.map(sessionOf).filter((id): id is string => id !== undefined),
    );
    await insertCustomerEvents(
      tx,
      input.events.map((event, i) => {
        const userId = userOf(event);
        const sessionId = sessionOf(event);
        return {
          orgId,
          endUserId: userId === undefined ? null : (users.get(userId) ?? null),
          anonymousId: event.anonymous_id ?? input.anonymous_id ?? null,
          conversationId: sessionId === undefined ? null : (chats.get(sessionId) ?? null),
          name: event.name,
          properties: event.properties ?? {},
          occurredAt: occurred[i]!,
          receivedAt: now,
        };
      }),
    );
  });
  return { accepted: input.events.length };
}
