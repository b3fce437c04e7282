// Step 4, sources: the documents the reply used (../sources.ts), told to the sink as one `sources`
// action when there are any, so a stream can show them.
import type { MessageSource } from "../../../db/schema/index.ts";
import type { Emit, PipelineAction } from "../chat-turn.ts";
import { replySources } from "../sources.ts";
import type { Answered } from "./answer-step.ts";

export function sourcesStep({ passages, result, provider }: Answered, emit: Pick<Emit, "action">): MessageSource[] {
  const sources = replySources(passages, result, provider);
  if (sources.length > 0) emit.action({ type: "sources", sources } satisfies PipelineAction);
  return sources;
}
