// Who acts. The same union as the tool runtime's Actor: a dashboard member, an
// OAuth token (on behalf of its member), a widget customer, or the system itself (CLI, scheduler,
// housekeeping). Every state-changing service call takes one, so the activity log can say who.
export type Actor =
  | { kind: "token"; tokenId: string; clientId: string; memberId: string; scopes: readonly string[] }
  | { kind: "member"; memberId: string }
  /** `sessionId` is the conversation's id, never the session token (which is stored only hashed). */
  | { kind: "customer"; endUserId: string | null; sessionId?: string }
  | { kind: "system"; name: string };

export function memberActor(memberId: string): Actor {
  return { kind: "member", memberId };
}

export function systemActor(name: string): Actor {
  return { kind: "system", name };
}
