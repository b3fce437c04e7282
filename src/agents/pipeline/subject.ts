// A chat ticket's subject: the customer's first real question in the conversation (README
// "Inbox"), not the line that asked for a person ("Talk to a person", "human"), a "yes" to the
// offer of one, or a greeting. The team can edit it; reply emails say "Re: <subject>".
import type { ConversationMessage } from "../../conversations/transcript.ts";
import { acceptsOffer, asksForPerson } from "./triage.ts";

const GREETING =
  /^(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening)|thanks|thank you|ok|okay|no|nope|yes|help)\b[\s.,!?]*(?:there|team|again)?[\s.,!?]*$/i;
const SUBJECT_MAX = 120;

/** Whether a customer line says something the team can file a ticket under. */
export function isRealQuestion(text: string): boolean {
  const line = text.trim();
  if (line === "" || GREETING.test(line) || asksForPerson(line) || acceptsOffer(line)) return false;
  return line.includes("?") || line.split(/\s+/).length >= 3;
}

function firstLine(text: string): string {
  const line =
    text
      .split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? "Chat";
  return line.length > SUBJECT_MAX ? `${line.slice(0, SUBJECT_MAX - 1)}…` : line;
}

/** The first real customer question in the history and this message, else this message's first line. */
export function chatSubject(history: readonly ConversationMessage[], message: string): string {
  const asked = [...history.filter((m) => m.role === "customer").map((m) => m.text), message].find(isRealQuestion);
  return firstLine(asked ?? message);
}
