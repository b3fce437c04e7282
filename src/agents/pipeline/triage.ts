// Triage, the pipeline's first stage. Decides, without a model, whether
// a message goes straight to a person or a team, is handed to another of the org's agents, or is
// answered by the current agent. Pure decisions over the message and the agents; the ticket itself
// is created by the pipeline (run.ts). docs/decisions.md "Chat triage".
//
//   1. `mode: livehelp`, or a direct request for a person in any common wording ("can I talk to a
//      human?", "connect me with an agent", "real person please", "I want to speak to someone"),
//      or "yes" right after the agent offered a person → live help.
//      A negated request ("I don't want to talk to a human") is not one.
//   2. The agent's routing rules, in order; the first match wins. A rule matches on any of its
//      keywords (whole words or phrases, case-insensitive) or on its intent (a small documented
//      lexicon per intent; any other intent name matches as a word). `action: "route"` (the
//      default) → the rule's team. `action: "handoff"` → the first other enabled agent of the org
//      whose skills include the rule's `team` (compared case-insensitively, `_`, `-` and spaces
//      alike); when no agent has that skill the message is routed to the team instead.
import type { RoutingRule } from "../../db/schema/index.ts";

export type TriageDecision =
  | { kind: "answer" }
  | { kind: "route"; action: "live_help"; team: null; reason: "livehelp_mode" | "person_requested" | "offer_accepted" }
  | { kind: "route"; action: "route"; team: string; reason: "rule"; rule: number }
  | { kind: "handoff"; agentId: string; skill: string; rule: number };

/** The agent fields triage reads (src/agents/service.ts `Agent` has them). */
export interface TriageAgent {
  id: string;
  status: string;
  skills: string[];
  routingRules: RoutingRule[];
}

export interface TriageInput {
  message: string;
  mode: string;
  agent: TriageAgent;
  /** Every agent of the org (handoff targets). */
  agents: readonly TriageAgent[];
  /** The agent's previous reply offered a person (an `offer_person` action). */
  personOffered: boolean;
}

const norm = (text: string) => text.toLowerCase().replace(/[’‘`]/g, "'").replace(/\s+/g, " ").trim();

const PERSON =
  "(?:human(?: being)?|person|real person|live (?:person|agent|chat|support|help)|" +
  "(?:a |an |the |your )?(?:support |customer service |customer support |real |actual )?" +
  "(?:agent|representative|rep|operator|staff|someone|somebody|manager|supervisor|team member|support team|member of (?:your |the )?(?:team|staff)))";
const PERSON_REQUESTS = [
  // "talk to a human", "speak with someone", "chat with a real person"
  new RegExp(
    "\\b(?:talk|speak|chat|get through|be connected|connect me|put me through|transfer me|hand me over|escalate(?: this)?)\\b" +
      `[^.?!]{0,20}\\b(?:to|with)\\b[^.?!]{0,15}\\b${PERSON}\\b`,
  ),
  // "human please", "agent!", "real person", "operator" as the whole message
  new RegExp(`^(?:(?:a|an|the|my|your|i want|i need|get me|give me)\\s+)*${PERSON}(?:\\s+(?:please|pls|now|asap))*[\\s.!?]*$`),
  // "I want/need/would like a human", "get me a person", "is there a human I can chat with": the
  // person ends the clause or is followed by talking ("I need a support agent seat" is not a request).
  new RegExp(
    "\\b(?:want|need|would like|'d like|prefer|get me|give me|is there|can i have|may i have|let me have)\\b[^.?!]{0,12}\\b" +
      `${PERSON}(?=\\s*(?:please|pls|now|asap|instead|right now|here)?\\s*(?:[.!?,;]|$)|\\s+(?:i can|to|who can|that can)\\s+(?:talk|speak|chat|help))`,
  ),
  /\b(?:live help|live chat|livehelp|human support|human agent|human help)\b/,
  // The other catalogue languages (README "Languages"): the plainest ways of asking for a person.
  new RegExp(
    `(?<![\\p{L}])(?:${[
      "(?:hablar|habla|chatear) con (?:una |un |alguien|algún )?(?:persona|humano|agente|asesor)", // es
      "(?:mit )?(?:einem |einer )?(?:menschen|mitarbeiter|mitarbeiterin|person) (?:sprechen|reden)", // de
      "parler (?:à|a|avec) (?:un |une |quelqu'un)?(?:humain|personne|conseiller|conseillère|agent)?", // fr
      "falar com (?:uma |um |alguém)?(?:pessoa|humano|atendente|agente)?", // pt
      "parlare con (?:una |un |qualcuno)?(?:persona|operatore|operatrice|umano)?", // it
      "(?:met )?(?:een )?(?:mens|medewerker|persoon) (?:praten|spreken)", // nl
      "(?:التحدث|أتحدث|تحدث) (?:إلى|مع) (?:شخص|موظف|إنسان)", // ar
    ].join("|")})(?![\\p{L}])|担当者|オペレーター|人と話|人工客服|转人工|真人客服`,
    "u",
  ),
];
const NEGATED = /\b(?:don't|do not|dont|no need to|not|never|without)\b[^.?!]{0,25}\b(?:talk|speak|chat|want|need|connect|human|person|agent)\b/;

/** A direct request for a person, in many wordings (docs/decisions.md "Chat triage"). */
export function asksForPerson(message: string): boolean {
  const text = norm(message);
  if (NEGATED.test(text)) return false;
  return PERSON_REQUESTS.some((re) => re.test(text));
}

const YES =
  /^(?:yes|yeah|yep|yup|sure|ok|okay|please|please do|yes please|go ahead|do it|that would be great|sounds good)\b[\s.,!]*(?:please|thanks|thank you)?[\s.!]*$/;
/** "yes" in the other catalogue languages, the whole message (README "Languages"). */
const YES_OTHER = new RegExp(
  `^(?:${[
    "s[ií]|claro|vale|de acuerdo|s[ií],? por favor|por favor", // es
    "ja|ja,? bitte|gerne|bitte", // de
    "oui|oui,? merci|d'accord|volontiers", // fr
    "sim|sim,? por favor", // pt
    "certo|s[ìi],? grazie|va bene", // it
    "ja graag|graag", // nl
    "はい|はい、お願いします|お願いします", // ja
    "是|是的|好|好的", // zh
    "نعم|أجل|نعم،? من فضلك", // ar
  ].join("|")})[\\s.,!。！、]*$`,
  "u",
);

/** "yes" to the agent's offer of a person. */
export function acceptsOffer(message: string): boolean {
  const text = norm(message);
  return YES.test(text) || YES_OTHER.test(text);
}

/** Intent lexicons: a rule's `intent` matches when the message holds one of these words or phrases. */
export const INTENTS: Record<string, readonly string[]> = {
  billing: [
    "bill",
    "billing",
    "billed",
    "invoice",
    "invoices",
    "charge",
    "charged",
    "payment",
    "payments",
    "card",
    "subscription",
    "pricing",
    "price",
    "receipt",
  ],
  refund: ["refund", "refunds", "money back", "reimburse", "chargeback"],
  cancellation: ["cancel", "cancellation", "unsubscribe", "close my account", "delete my account", "terminate"],
  bug: ["bug", "error", "crash", "crashes", "broken", "not working", "doesn't work", "does not work", "exception"],
  sales: ["quote", "demo", "enterprise", "pricing plan", "purchase", "buy", "sales", "volume discount"],
  security: ["security", "vulnerability", "breach", "hacked", "phishing", "compromised", "leak"],
  shipping: ["shipping", "delivery", "shipment", "tracking", "package", "parcel", "courier"],
  account: ["login", "log in", "sign in", "password", "account", "locked out", "two-factor", "2fa"],
  legal: ["gdpr", "legal", "lawyer", "subpoena", "privacy request", "data request"],
};

function escape(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A keyword or phrase occurring as whole words in `text` (already normalised). */
function hasPhrase(text: string, phrase: string): boolean {
  const p = norm(phrase);
  if (p === "") return false;
  return new RegExp(`(?:^|[^\\p{L}\\p{N}])${escape(p)}(?:$|[^\\p{L}\\p{N}])`, "u").test(text);
}

export function ruleMatches(rule: RoutingRule, message: string): boolean {
  const text = norm(message);
  if ((rule.match.keywords ?? []).some((k) => hasPhrase(text, k))) return true;
  const intent = rule.match.intent;
  if (intent === undefined) return false;
  const lexicon = INTENTS[norm(intent)] ?? [intent];
  return lexicon.some((word) => hasPhrase(text, word));
}

const skillKey = (s: string) => norm(s).replace(/[\s_-]+/g, "_");

export function triage(input: TriageInput): TriageDecision {
  if (input.mode === "livehelp") return { kind: "route", action: "live_help", team: null, reason: "livehelp_mode" };
  if (asksForPerson(input.message)) return { kind: "route", action: "live_help", team: null, reason: "person_requested" };
  if (input.personOffered && acceptsOffer(input.message)) return { kind: "route", action: "live_help", team: null, reason: "offer_accepted" };
  const rules = input.agent.routingRules;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    if (!ruleMatches(rule, input.message)) continue;
    if (rule.action === "handoff") {
      const wanted = skillKey(rule.team);
      const target = input.agents.find((a) => a.id !== input.agent.id && a.status !== "disabled" && a.skills.some((s) => skillKey(s) === wanted));
      if (target) return { kind: "handoff", agentId: target.id, skill: rule.team, rule: i };
    }
    return { kind: "route", action: "route", team: rule.team, reason: "rule", rule: i };
  }
  return { kind: "answer" };
}
