// Which model answers for an org and agent: the agent's own override,
// else the org's (org_llm_settings), else the operator's default from the environment.
//
// Override rules (docs/decisions.md "LLM overrides"):
//   * an override is taken whole: provider, model, base URL and key come from the same level;
//   * an org/agent override with a base URL is fetched through the outbound guard on every
//     request (org admins must not reach the internal network) and never receives the
//     operator's key;
//   * an override without a base URL for the operator's own provider reuses the operator's
//     (trusted) URL, and the operator's key unless it sets its own — that is how an org picks
//     another model of the operator's account; for another provider it uses that vendor's
//     public API (still through the guard) with its own key;
//   * the builtin provider needs nothing.
import { eq, sql } from "drizzle-orm";
import { LLM_DEFAULT_BASE_URLS } from "../../config.ts";
import type { Db } from "../../db/client.ts";
import { prepared } from "../../db/prepared.ts";
import { type LlmOverride, orgLlmSettings } from "../../db/schema/index.ts";
import type { Deps } from "../../deps.ts";
import { anthropicProvider } from "./anthropic.ts";
import { builtinProvider } from "./builtin.ts";
import { LlmError } from "./errors.ts";
import { type NetworkSettings, openAiProvider } from "./openai.ts";
import type { LlmProvider, ProviderKind } from "./types.ts";

/** The agent fields providerFor reads (the row getAgent returns has them). */
export interface AgentLlmSource {
  id: string;
  llmOverride: LlmOverride | null;
}

/** Where an encrypted override key lives, as associated data for deps.cipher (crypto/fields.ts). */
export function llmKeyContext(level: "org" | "agent", id: string): string {
  return level === "org" ? `org_llm_settings.api_key:${id}` : `agents.llm_override.api_key:${id}`;
}

/** The settings a provider is built from, once the levels are resolved (exposed for the API's "effective" view and tests). */
export interface ResolvedLlm {
  provider: ProviderKind;
  model: string;
  source: "operator" | "org" | "agent";
  network?: NetworkSettings;
}

export function resolveLlm(deps: Pick<Deps, "config" | "cipher">, level: { kind: "org" | "agent"; id: string; override: LlmOverride } | null): ResolvedLlm {
  const operator = deps.config.llm;
  const common = { maxTokens: operator.maxTokens, timeoutMs: operator.timeoutSeconds * 1000 };
  if (level === null) {
    if (operator.provider === "builtin") return { provider: "builtin", model: operator.model, source: "operator" };
    return {
      provider: operator.provider,
      model: operator.model,
      source: "operator",
      network: { baseUrl: operator.baseUrl, apiKey: operator.apiKey, model: operator.model, trusted: true, ...common },
    };
  }
  const { override } = level;
  const source = level.kind;
  if (override.provider === "builtin") return { provider: "builtin", model: override.model ?? "builtin-extractive", source };
  const ownKey = override.api_key === null ? undefined : deps.cipher.decrypt(override.api_key, llmKeyContext(level.kind, level.id));
  const model = override.model ?? (override.provider === operator.provider ? operator.model : "");
  if (override.base_url === null && override.provider === operator.provider)
    return {
      provider: override.provider,
      model,
      source,
      network: { baseUrl: operator.baseUrl, apiKey: ownKey ?? operator.apiKey, model, trusted: true, ...common },
    };
  const baseUrl = override.base_url ?? LLM_DEFAULT_BASE_URLS[override.provider];
  return { provider: override.provider, model, source, network: { baseUrl, apiKey: ownKey, model, trusted: false, ...common } };
}

/** The org's override row when the caller holds it already (a chat turn: src/agents/turn-settings.ts); read otherwise. */
export interface OrgLlmKnown {
  row: typeof orgLlmSettings.$inferSelect | null | undefined;
}

/** Read on every chat turn whose agent has no override: built once per process (src/db/prepared.ts). */
const orgSettings = (db: Db) =>
  db
    .select()
    .from(orgLlmSettings)
    .where(eq(orgLlmSettings.orgId, sql.placeholder("orgId")))
    .prepare("org_llm_settings");

/** The level that decides for this org and agent: the agent's override, the org's, or none (the operator's). */
export async function overrideFor(deps: Pick<Deps, "db" | "statements">, orgId: string, agent?: AgentLlmSource | null, org?: OrgLlmKnown) {
  if (agent?.llmOverride) return { kind: "agent" as const, id: agent.id, override: agent.llmOverride };
  const row = org ? org.row : (await prepared(deps, "org_llm_settings", orgSettings).execute({ orgId }))[0];
  if (!row) return null;
  return { kind: "org" as const, id: orgId, override: { provider: row.provider, base_url: row.baseUrl, model: row.model, api_key: row.apiKey } };
}

export function providerFromResolved(deps: Pick<Deps, "guard" | "timers">, resolved: ResolvedLlm): LlmProvider {
  if (resolved.provider === "builtin" || !resolved.network) return builtinProvider(resolved.model);
  const options = { deps: { guard: deps.guard, timers: deps.timers } };
  return resolved.provider === "openai" ? openAiProvider(resolved.network, options) : anthropicProvider(resolved.network, options);
}

/**
 * Every model request is counted (svc_llm_request_duration_seconds by provider kind and outcome:
 * `ok`, or the LlmError code; svc_llm_tokens_total). Token usage is also recorded once per model request as a log line (`llm usage`: org, agent, provider,
 * model, input and output token counts as `usage_input` / `usage_output` — the logger redacts
 * any field named like a token — and where the settings came from): counts only, never content.
 */
function recordingUsage(
  deps: Pick<Deps, "log" | "metrics">,
  provider: LlmProvider,
  context: { orgId: string; agentId: string | null; source: ResolvedLlm["source"] },
): LlmProvider {
  return {
    kind: provider.kind,
    model: provider.model,
    async *stream(request) {
      const started = performance.now();
      let outcome = "cancelled"; // the caller stopped reading before the end
      let tokens: { input: number; output: number } | undefined;
      try {
        for await (const event of provider.stream(request)) {
          if (event.type === "done") {
            outcome = "ok";
            tokens = event.usage;
            if (event.usage && provider.kind !== "builtin")
              deps.log.info("llm usage", {
                org_id: context.orgId,
                agent_id: context.agentId,
                provider: provider.kind,
                model: provider.model,
                source: context.source,
                stop: event.stop,
                usage_input: event.usage.input,
                usage_output: event.usage.output,
              });
          }
          yield event;
        }
      } catch (error) {
        outcome = error instanceof LlmError ? error.code : "error";
        throw error;
      } finally {
        deps.metrics.llmRequest(provider.kind, outcome, (performance.now() - started) / 1000, tokens);
      }
    },
  };
}

/** C6: the provider that answers for `orgId` (and `agent`, when the pipeline has one). */
export async function providerFor(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "log" | "metrics" | "statements" | "timers">,
  orgId: string,
  agent?: AgentLlmSource | null,
  org?: OrgLlmKnown,
): Promise<LlmProvider> {
  const resolved = resolveLlm(deps, await overrideFor(deps, orgId, agent, org));
  const provider = providerFromResolved(deps, resolved);
  return recordingUsage(deps, provider, { orgId, agentId: agent?.id ?? null, source: resolved.source });
}
