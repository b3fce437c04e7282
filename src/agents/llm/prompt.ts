// How the network adapters put the retrieved passages in front of a model: after the agent's
// instructions, numbered, each with its title and URL, with a rule (PASSAGES_RULE) to answer only
// from them, to say so plainly when they do not hold the answer rather than guess, and to cite
// the ones it used. 0x1E never reaches a model from our side
// (docs/interface.md D: the widget stream uses it as its record separator).
import type { Passage } from "./types.ts";

const RS = /\x1e/g;

/**
 * The rule that comes with the passages. A passage is cited by its number or title because the
 * reply's `sources` are the passages it names (src/agents/pipeline/knowledge.ts `usedPassages`).
 */
export const PASSAGES_RULE =
  "Knowledge-base passages for this question. Answer only from these passages: do not add facts, " +
  "steps, prices or links that they do not state, and do not guess. If they do not contain the answer, " +
  "say so plainly and offer to connect the customer with a person. Name each passage you used by its title (or its number in brackets, " +
  "like [1]), and none that you did not use. Write plain sentences the customer can read at once.";

export function systemPrompt(system: string, passages: readonly Passage[]): string {
  const base = system.replace(RS, "").trim();
  if (passages.length === 0) return base;
  const listed = passages.map((p, i) => `[${i + 1}] ${p.title.replace(RS, "")}${p.url ? ` <${p.url}>` : ""}\n${p.text.replace(RS, "").trim()}`).join("\n\n");
  return `${base}${base ? "\n\n" : ""}${PASSAGES_RULE}\n\n${listed}`;
}
