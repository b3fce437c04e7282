// Confidence and escalation, the pipeline's last stage (docs/interface.md 2.6
// `confidence`: "based on knowledge-base coverage, tool usage and escalation signals").
// docs/decisions.md "Chat confidence and escalation" repeats the formula and the thresholds.
//
//   confidence = clamp(K + 0.1·T − 0.3·F − 0.4·U, 0, 1), rounded to 2 decimals
//
//   K  knowledge evidence (`evidenceOf`): how likely the first page retrieved is the one that
//      answers — the product of two fitted logistic curves (docs/quality.md "Calibration",
//      bench/quality-fit.ts prints the fit): whether the knowledge base holds an answer at all
//      (`heldOf`: how much of the question's weighted rare terms the first page's best passage
//      holds, and how many of its words no page uses), and whether this page is the one (how far
//      its score leads the next page's, and the same coverage); 0.5 when the message has no
//      content words (a greeting, thanks, "yes"), which gets no knowledge answer.
//   T  tool outcome: 1 when the answer called tools and every call succeeded, −1 when any failed,
//      0 when it called none.
//   F  frustration: 1 when behavior_context or the message carries frustration signals (below).
//   U  uncertainty: 1 when the provider said it found no answer — as data (`answered: false` on its
//      result: the builtin's no-answer, or a model that said nothing), never read back from the
//      reply's words, which may be in any language (README "Languages").
//
// Escalation, from the confidence and the session:
//   * confidence < OFFER_BELOW (0.5), or frustration → the reply offers a person (`offer_person` action);
//   * confidence < OFFER_BELOW and (frustration, or the agent's previous reply in this session was
//     also below it) → a ticket is created for the team (`ticket_created` action, reason `escalation`).
import { terms } from "../../kit/words.ts";

export const CONFIDENCE = {
  tools: 0.1,
  frustration: 0.3,
  uncertainty: 0.4,
  /**
   * Which page, given that one answers: 1 / (1 + e^−(intercept + margin·m + coverage·c)). Fitted
   * on doc2dial's development questions, where pages of one site compete; the intercept puts about
   * 85 % of answers at 0.5 or more on the right page there (docs/decisions.md "Chat confidence and escalation").
   */
  intercept: -1.7,
  margin: 8.6,
  coverage: 0.5,
  /**
   * Whether the knowledge base holds an answer at all: 1 / (1 + e^−(heldIntercept + heldCoverage·c
   * + unknownWord·min(u, unknownMax))), u being the question's words no page uses. Fitted by
   * bench/quality-fit.ts on questions each corpus answers (doc2dial, XQuAD English) against the
   * same questions asked of the other corpus, which cannot answer them, each corpus weighted alike.
   * A word the pages never use is the plainest sign the question is about something else
   * ("archiving on gmail" asked of a government site); the coverage of the rare terms is the next.
   */
  heldIntercept: -1.47,
  heldCoverage: 6.6,
  unknownWord: -2.03,
  /** Unknown words counted at most (a long off-topic message is no less off-topic for a fourth one). */
  unknownMax: 3,
  /**
   * Letters (of the stem) an unknown word needs to weigh in the coverage as well: a shorter one is
   * as often an everyday word a small help centre happens not to use ("how long does it take") as
   * a subject of its own, so it counts only as an unknown word (src/agents/pipeline/knowledge.ts `coverageTerms`).
   */
  unknownMinLength: 5,
  /** K for a message without content terms. */
  neutralCoverage: 0.5,
  /** Below this the agent offers a person; twice in a row (or with frustration) it opens a ticket. */
  offerBelow: 0.5,
} as const;

const logistic = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * How likely the knowledge base holds an answer to the question (0–1): `coverage` is the share of
 * its weighted rare terms the first page's best passage holds, `unknown` how many of the current
 * message's words no page uses (after typo correction and synonyms: src/knowledge/query.ts).
 */
export function heldOf(r: { coverage: number; unknown: number }): number {
  const { heldIntercept, heldCoverage, unknownWord, unknownMax } = CONFIDENCE;
  return logistic(heldIntercept + heldCoverage * r.coverage + unknownWord * Math.min(r.unknown, unknownMax));
}

/**
 * How likely the first page is the one that answers (0–1): `first` and `second` are the two best
 * pages' scores, `coverage` the share of the message's weighted rare terms in the first page's best
 * passage, `unknown` the message's words no page uses — the chance that some page answers
 * (`heldOf`, of `heldCoverage` when given: src/agents/pipeline/knowledge.ts) times the chance that it is this one.
 */
export function evidenceOf(r: { first: number; second: number; coverage: number; unknown: number; heldCoverage?: number }): number {
  const margin = r.first > 0 ? (r.first - r.second) / r.first : 0;
  const page = logistic(CONFIDENCE.intercept + CONFIDENCE.margin * margin + CONFIDENCE.coverage * r.coverage);
  return Math.round(page * heldOf({ coverage: r.heldCoverage ?? r.coverage, unknown: r.unknown }) * 1000) / 1000;
}

export interface Signals {
  /** Knowledge evidence (`evidenceOf` of the first page), 0–1. */
  coverage: number;
  question: string;
  toolCalls: number;
  toolFailures: number;
  frustrated: boolean;
  /** False when the provider said it found no answer (src/agents/pipeline/answer.ts `AnswerResult.answered`). */
  answered: boolean;
}

const FRUSTRATION_BEHAVIOR = new RegExp(
  `\\b(?:${[
    "rage[\\s_-]?clicks?|dead[\\s_-]?clicks?|frustrat\\w*|angry|annoyed|error[\\s_-]?clicks?",
    "repeated(?:ly)?[\\s_-]?(?:clicks?|errors?|fail\\w*|attempts?)|thrashing|u[\\s_-]?turns?",
    "(?:clicked|tried|failed)\\s+\\d{1,4}\\s+times",
  ].join("|")})\\b`,
  "i",
);
/**
 * Words of frustration in each catalogue language (README "Languages"), matched as whole words in
 * any message whatever its language (a customer may complain in another language than they asked
 * in). Chinese and Japanese are written without spaces: their phrases match anywhere.
 */
const FRUSTRATION_WORDS: readonly string[] = [
  // en
  "useless|not helpful|unhelpful|doesn'?t help|does not help|still (?:not|doesn'?t|does not|broken|failing)|" +
    "ridiculous|terrible|awful|waste of (?:my )?time|fed up|sick of|so frustrat\\p{L}*|annoying|wtf|this is a joke|nothing works",
  // es
  "in[uú]til|no (?:me )?sirve|no ayuda|sigue sin funcionar|rid[ií]culo|" +
    "horrible|p[eé]rdida de tiempo|estoy harto|estoy harta|qu[eé] desastre|nada funciona|no funciona nada",
  // de
  "nutzlos|hilft nicht|bringt nichts|funktioniert (?:immer )?noch nicht|l[aä]cherlich|" +
    "schrecklich|zeitverschwendung|ich habe es satt|mir reicht'?s|nichts funktioniert|unverschämt",
  // fr
  "inutile|[çc]a n[’']aide pas|ne sert à rien|toujours pas|ridicule|nul|horrible|perte de temps|j[’']en ai marre|ras le bol|rien ne marche|rien ne fonctionne",
  // pt
  "in[uú]til|n[aã]o ajuda|ainda n[aã]o funciona|rid[ií]culo|horr[ií]vel|perda de tempo|estou farto|estou farta|nada funciona|que absurdo",
  // it
  "inutile|non aiuta|ancora non funziona|ridicolo|terribile|perdita di tempo|sono stufo|sono stufa|non funziona niente|niente funziona|assurdo",
  // nl
  "nutteloos|helpt niet|werkt nog steeds niet|belachelijk|verschrikkelijk|zonde van mijn tijd|ik ben het zat|niets werkt|waardeloos",
  // ar
  "غير مفيد|لا فائدة|لا يعمل|سخيف|مضيعة للوقت|سئمت|لا شيء يعمل|فظيع",
];
const FRUSTRATION_MESSAGE = new RegExp(`(?<![\\p{L}\\p{N}])(?:${FRUSTRATION_WORDS.join("|")})(?![\\p{L}\\p{N}])|!{3,}|！{3,}`, "iu");
/** Chinese and Japanese: no spaces between words, so the phrases are looked for anywhere. */
const FRUSTRATION_CJK = /没用|没有用|毫无帮助|浪费时间|太差了|受够了|还是不行|根本不行|役に立たない|使えない|時間の無駄|ひどい|まだ動かない|いい加減にして/u;

/** Frustration signals in the session's behaviour data or the message itself. */
export function frustrationIn(behavior: string | undefined, message: string): boolean {
  if (behavior && FRUSTRATION_BEHAVIOR.test(behavior)) return true;
  if (FRUSTRATION_MESSAGE.test(message) || FRUSTRATION_CJK.test(message)) return true;
  // Shouting: a message of some length written in capitals. Only letters that have a case count: an
  // Arabic, Hindi, Thai or Chinese question naming "SR 99" or "ARPANET" is not written in capitals.
  const cased = message.match(/[\p{Lu}\p{Ll}\p{Lt}]/gu) ?? [];
  return cased.length >= 12 && cased.every((c) => c === c.toUpperCase());
}

const clamp = (n: number) => Math.min(1, Math.max(0, n));

export function confidenceOf(s: Signals): number {
  // Nothing looked up (a greeting, "yes" at the start of a conversation): neutral, no knowledge answer to be sure of.
  const k = terms(s.question).length === 0 && s.coverage === 0 ? CONFIDENCE.neutralCoverage : clamp(s.coverage);
  const t = s.toolCalls === 0 ? 0 : s.toolFailures > 0 ? -1 : 1;
  const value = k + CONFIDENCE.tools * t - CONFIDENCE.frustration * (s.frustrated ? 1 : 0) - CONFIDENCE.uncertainty * (s.answered ? 0 : 1);
  return Math.round(clamp(value) * 100) / 100;
}

export type Escalation = "none" | "offer" | "ticket";

/** What the agent does about a reply (see the header). `previousLow`: its previous reply in the session was below the threshold. */
export function escalationFor(confidence: number, frustrated: boolean, previousLow: boolean): Escalation {
  const low = confidence < CONFIDENCE.offerBelow;
  if (low && (frustrated || previousLow)) return "ticket";
  if (low || frustrated) return "offer";
  return "none";
}
