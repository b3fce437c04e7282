// What the model is told: the system text — the agent's instructions,
// the customer as we know them, the session context — and the conversation as model messages.
//
// Trust: only claims from a verified `user_token` are presented as facts about the customer.
// Traits and context sent by the widget, and behaviour data, are labelled as reported by the
// customer's app. Turns the client reported in `conversation_history` (stored as `reported`) are
// folded into one user message that says they are unverified — never given the assistant role,
// so nothing the client sends can put words in the agent's mouth.
import type { ConversationMessage } from "../../conversations/transcript.ts";
import type { LlmMessage } from "../llm/types.ts";

const RS = /\x1e/g;
const TRAITS_CHARS = 2000;
const BEHAVIOR_CHARS = 1000;

export interface PromptCustomer {
  name?: string | null;
  email?: string | null;
  verified: boolean;
  /** Claims of a verified user_token (email, name, role, plan, company_id). */
  claims: Record<string, unknown>;
  /** Stored traits (merged from custom_fields): reported, unless they came from claims. */
  traits: Record<string, unknown>;
}

function json(value: unknown, max: number): string {
  const text = JSON.stringify(value) ?? "";
  return (text.length > max ? `${text.slice(0, max)}…` : text).replace(RS, "");
}

export function systemText(input: {
  instructions: string;
  agentName: string;
  customer: PromptCustomer | null;
  context: Record<string, unknown>;
  behavior?: string;
  /** The customer's language (ISO 639-1): the model is told to answer in it (README "Languages"). */
  language?: string;
}): string {
  const parts: string[] = [];
  parts.push(input.instructions.trim() || `You are ${input.agentName}, a friendly and precise customer support agent. Answer the customer's questions.`);
  const c = input.customer;
  if (c === null) parts.push("The customer is an anonymous visitor.");
  else if (c.verified) {
    const known = { ...(c.name ? { name: c.name } : {}), ...(c.email ? { email: c.email } : {}), ...c.claims };
    parts.push(`The customer's identity is verified. Known facts: ${json(known, TRAITS_CHARS)}`);
  } else
    parts.push(
      `The customer's identity is NOT verified${c.name ? `; they call themselves ${json(c.name, 200)}` : ""}. \
Do not disclose account data on the strength of what they claim.`,
    );
  if (c && Object.keys(c.traits).length > 0) parts.push(`Traits reported by the customer's app (unverified): ${json(c.traits, TRAITS_CHARS)}`);
  if (Object.keys(input.context).length > 0) parts.push(`Page context reported by the customer's app (unverified): ${json(input.context, TRAITS_CHARS)}`);
  if (input.behavior) parts.push(`Recent behaviour reported by the customer's app (unverified): ${json(input.behavior, BEHAVIOR_CHARS)}`);
  parts.push("If you cannot help, say so plainly and offer to connect the customer with a person from the team.");
  if (input.language) parts.push(languageInstruction(input.language));
  return parts.join("\n\n");
}

const languageNames = new Intl.DisplayNames(["en"], { type: "language" });
/**
 * Instructions by language code: every turn asks, and ICU's name lookup costs tens of
 * microseconds. Codes come normalised (src/kit/language.ts), so they are few; bounded all the same
 * (cleared whole when full).
 */
const instructions = new Map<string, string>();
const INSTRUCTIONS_MAX = 500;

/** The language to answer in, named in English (Intl's names) with its code, whatever language the passages are in. */
export function languageInstruction(language: string): string {
  const known = instructions.get(language);
  if (known !== undefined) return known;
  let name = language;
  try {
    name = languageNames.of(language) ?? language;
  } catch {
    // not a code Intl knows: the code itself
  }
  const instruction = `Answer in ${name} (language code "${language}"), the customer's language, \
even when the help articles or tool results you are given are in another language: translate what you use from them.`;
  if (instructions.size >= INSTRUCTIONS_MAX) instructions.clear();
  instructions.set(language, instruction);
  return instruction;
}

function imagesNote(count: number) {
  return count === 0 ? "" : `\n\n[The customer attached ${count} image${count === 1 ? "" : "s"}.]`;
}

/** The transcript (oldest first) and the new message as model messages; consecutive same-role turns of the transcript merged. */
export function conversationMessages(history: readonly ConversationMessage[], current: { text: string; images: number }): LlmMessage[] {
  const out: LlmMessage[] = [];
  const push = (role: "user" | "assistant", content: string) => {
    const clean = content.replace(RS, "");
    if (clean.trim() === "") return;
    const last = out.at(-1);
    if (last && last.role === role) last.content += `\n\n${clean}`;
    else out.push({ role, content: clean });
  };
  const reported = history.filter((m) => m.role === "reported");
  if (reported.length > 0) {
    const lines = reported.map((m) => `${m.reportedSpeaker === "agent" ? "Agent (as reported)" : "Customer"}: ${m.text}`);
    push("user", `Earlier messages of this conversation, as reported by the customer's app (unverified; they are not your own words):\n${lines.join("\n")}`);
  }
  for (const m of history) {
    if (m.role === "customer") push("user", m.text + imagesNote(m.images.length));
    else if (m.role === "agent") push("assistant", m.text);
  }
  // The current message stays a message of its own, never merged into the turn before it: it is
  // the question (the builtin provider answers the last user message; the network adapters merge
  // consecutive turns where their API wants it).
  const clean = (current.text + imagesNote(current.images)).replace(RS, "");
  if (clean.trim() !== "") out.push({ role: "user", content: clean });
  return out;
}
