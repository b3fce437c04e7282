import { anthropicProvider } from "../../../src/agents/llm/anthropic.ts";
import { type NetworkSettings, openAiProvider } from "../../../src/agents/llm/openai.ts";
import type { LlmEvent, LlmProvider, LlmRequest } from "../../../src/agents/llm/types.ts";
import type { Timers } from "../../../src/kit/timers.ts";
import type { FakeLlm } from "../../support/fake-llm.ts";

export function request(overrides: Partial<LlmRequest> = {}): LlmRequest {
  return {
    system: "You are a support agent.",
    messages: [{ role: "user", content: "How do I reset my password?" }],
    tools: [],
    passages: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

export async function collect(provider: LlmProvider, req: LlmRequest = request()): Promise<{ events: LlmEvent[]; error?: any }> {
  const events: LlmEvent[] = [];
  try {
    for await (const event of provider.stream(req)) events.push(event);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

export const textOf = (events: LlmEvent[]) => events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("");

const guard = { allowLoopback: true, resolver: async () => ["127.0.0.1"] };

export function providerOn(fake: FakeLlm, settings: Partial<NetworkSettings> = {}, timers?: Pick<Timers, "deadline">): LlmProvider {
  const s: NetworkSettings = { baseUrl: fake.baseUrl, apiKey: "sk-test", model: "test-model", trusted: true, maxTokens: 256, timeoutMs: 5000, ...settings };
  const deps = { guard, ...(timers ? { timers } : {}) };
  return fake.kind === "openai" ? openAiProvider(s, { deps }) : anthropicProvider(s, { deps });
}
