// How the network adapters put the retrieved passages in front of a model: after the agent's
// instructions, numbered, each with its title and URL, with a rule to answer only from them
// and to say so when they do not hold the answer. 0x1E never reaches a model from our side
// (docs/interface.md D: the widget stream uses it as its record separator).
import type { Passage } from "./types.ts";

const RS = /\x1e/g;

export function systemPrompt(system: string, passages: readonly Passage[]): string {
  const base = system.replace(RS, "").trim();
  if (passages.length === 0) return base;
  const listed = passages.map((p, i) => `[${i + 1}] ${p.title.replace(RS, "")}${p.url ? ` <${p.url}>` : ""}\n${p.text.replace(RS, "").trim()}`).join("\n\n");
  return `${base}${base ? "\n\n" : ""}Knowledge-base passages for this question. Answer from them; cite a passage by its title. If they do not contain the answer, say so plainly and offer to connect the customer with a person; never invent facts.\n\n${listed}`;
}
