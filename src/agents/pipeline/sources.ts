// The sources of a reply (docs/interface.md 2.6 `sources`): the passages that cover the question
// (the builtin quotes only those) and the documents the tools returned — when the provider said it
// found no answer (`answered: false`, as data), only the article it named as the closest (the
// customer may judge it), nothing else.
import type { MessageSource } from "../../db/schema/index.ts";
import type { ProviderKind } from "../llm/types.ts";
import type { AnswerResult } from "./answer.ts";
import { type ScoredPassage, usedPassages } from "./knowledge.ts";

export function replySources(passages: readonly ScoredPassage[], result: AnswerResult, provider: ProviderKind): MessageSource[] {
  const sources: MessageSource[] = [];
  const seen = new Set<string>();
  const add = (s: MessageSource) => {
    if (seen.has(s.doc_id)) return;
    seen.add(s.doc_id);
    sources.push(s);
  };
  if (result.answered) {
    for (const p of usedPassages(passages, result.text, provider)) add({ doc_id: p.docId, title: p.title, url: p.url });
    for (const s of result.toolSources) add(s);
  } else for (const p of passages) if (p.docId === result.closest) add({ doc_id: p.docId, title: p.title, url: p.url });
  return sources;
}
