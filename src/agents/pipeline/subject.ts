// A chat ticket's subject: the reason for the hand-off (README "Inbox"; docs/decisions.md "A chat
// ticket's subject"). That is the message that caused it — the one that asked for a person, matched
// a routing rule or could not be answered — without its request for a person, a greeting or a "yes"
// to the offer of one; when nothing is left of it, the latest real question before it (the chat's
// first message is often about something else); else, for a routing rule, the team and the message;
// else "Asked for a person". Always one line of at most SUBJECT_MAX characters. The team can edit
// it; reply emails say "Re: <subject>".
import type { ConversationMessage } from "../../conversations/transcript.ts";
import { acceptsOffer, asksForPerson } from "./triage.ts";
import { GREETINGS } from "../../kit/greetings.ts";

const GREETING = new RegExp(`^(?:${GREETINGS}|thanks|thank you|ok|okay|no|nope|yes|help|please)\\b[\\s.,!?]*(?:there|team|again)?[\\s.,!?]*$`, "i");
export const SUBJECT_MAX = 120;
/** Characters of a message looked at: a subject is short, and this bounds the work on a long message. */
const READ_MAX = 2000;
/** Line breaks, tabs and other controls, Unicode line and paragraph separators: a space. */
const BREAKS = /[\p{Cc}\u2028\u2029]+/gu;
/** Bidirectional marks, embeddings, overrides and isolates: removed (a subject must read as it shows). */
const BIDI = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** Whether a customer line says something the team can file a ticket under. */
export function isRealQuestion(text: string): boolean {
  const line = text.trim();
  if (line === "" || GREETING.test(line) || asksForPerson(line) || acceptsOffer(line)) return false;
  return substantial(line);
}

const substantial = (line: string) => line.includes("?") || line.split(/\s+/).length >= 3;

/** One line: controls and separators become spaces, runs of space one. */
function oneLine(text: string): string {
  return text.replace(BIDI, "").replace(BREAKS, " ").replace(/\s+/g, " ").trim();
}

/** What a message says besides asking for a person, greeting or saying yes: its other clauses, in order, as one line. */
export function reasonIn(message: string): string {
  const clauses = message.slice(0, READ_MAX).split(/(?<=[.!?;,\n])/);
  const kept = clauses.filter((clause) => {
    const line = oneLine(clause).replace(/[\s,;]+$/, "");
    return line !== "" && !GREETING.test(line) && !asksForPerson(line) && !acceptsOffer(line);
  });
  const line = oneLine(kept.join("")).replace(/[\s,;]+$/, "");
  return line.charAt(0).toUpperCase() + line.slice(1);
}

/** At most SUBJECT_MAX characters, cut between code points with an ellipsis. */
function capped(line: string): string {
  if (line.length <= SUBJECT_MAX) return line;
  const points = Array.from(line);
  let out = "";
  for (const point of points) {
    if (out.length + point.length > SUBJECT_MAX - 1) break;
    out += point;
  }
  return `${out.trimEnd()}…`;
}

/**
 * The subject of a ticket the chat opens on `message`: its reason if it has one, else the latest
 * real customer question in `history`, else (a routing rule's `team`) "<team>: <message>", else
 * "Asked for a person".
 */
export function chatSubject(history: readonly ConversationMessage[], message: string, rule?: { team: string }): string {
  const own = reasonIn(message);
  if (substantial(own)) return capped(own);
  const earlier = history
    .filter((m) => m.role === "customer")
    .map((m) => m.text.slice(0, READ_MAX))
    .reverse()
    .find(isRealQuestion);
  if (earlier) return capped(reasonIn(earlier) || oneLine(earlier));
  if (own && rule) return capped(`${oneLine(rule.team)}: ${own}`);
  return capped(own || "Asked for a person");
}
