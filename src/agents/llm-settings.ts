// The model settings of an org and of its agents (docs/decisions.md "LLM overrides"): which
// provider, base URL, model and key answer instead of the operator's default. The agent-level
// override is stored on the agent's row by src/agents/service.ts, which calls
// llmOverrideToStore here; the org-wide one has its own table, written only here. Kept apart from
// the agents service because the rules are the model's, not the agent's:
//   * The key is encrypted with deps.cipher (associated data names the row) and never returned —
//     views say only whether one is set.
//   * A base URL is checked by the outbound guard when saved, and again on every model request.
//   * Changing the provider or the base URL without giving a key forgets the stored key, so a key
//     is never sent to a URL other than the one it was saved for.
//   * Every change of the org-wide setting is recorded in the activity log.
import { eq } from "drizzle-orm";
import { recordActivity } from "../activity/log.ts";
import type { Actor } from "../kit/actor.ts";
import { type LlmOverride, orgLlmSettings } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import { BlockedUrlError, checkUrl } from "../net/guard.ts";
import { llmKeyContext, resolveLlm } from "./llm/provider.ts";
import type { ProviderKind } from "./llm/types.ts";
import { checkText } from "./text-field.ts";

/** Part of AGENT_LIMITS (src/agents/service.ts), which the forms and route schemas read. */
export const LLM_LIMITS = {
  model: 200,
  baseUrl: 2048,
  apiKey: 512,
} as const;

export interface LlmOverrideInput {
  provider: ProviderKind;
  base_url?: string | null;
  model?: string | null;
  /** A new key; null removes it; absent keeps it (unless provider or base_url change). */
  api_key?: string | null;
}

/** What a view says of an override: never the key, only whether one is set. */
export function overrideView(override: LlmOverride | null) {
  if (!override) return null;
  return { provider: override.provider, base_url: override.base_url, model: override.model, api_key_set: override.api_key !== null };
}

/** Checks an override and returns what to store (the key encrypted for `level`), or throws 400. */
export async function llmOverrideToStore(
  deps: Pick<Deps, "cipher" | "config" | "guard">,
  path: string,
  input: LlmOverrideInput,
  previous: LlmOverride | null,
  level: { kind: "org" | "agent"; id: string },
): Promise<LlmOverride> {
  const L = LLM_LIMITS;
  const problems: ErrorDetail[] = [];
  const baseUrl = input.base_url ?? null;
  const model = input.model ?? null;
  if (input.provider === "builtin") {
    if (baseUrl !== null) problems.push({ path: `${path}/base_url`, message: "is not used by the builtin provider" });
    if (input.api_key !== undefined && input.api_key !== null) problems.push({ path: `${path}/api_key`, message: "is not used by the builtin provider" });
  }
  if (model !== null) checkText(problems, `${path}/model`, model, 1, L.model);
  if (model === null && input.provider !== "builtin" && input.provider !== deps.config.llm.provider)
    problems.push({ path: `${path}/model`, message: `is required: the operator's model is for ${deps.config.llm.provider}, not ${input.provider}` });
  if (
    input.api_key !== undefined &&
    input.api_key !== null &&
    (input.api_key.length < 1 || input.api_key.length > L.apiKey || /[\s\x00-\x1f\x7f]/.test(input.api_key))
  )
    problems.push({ path: `${path}/api_key`, message: `must be 1 to ${L.apiKey} characters without spaces or control characters` });
  if (baseUrl !== null) {
    if (baseUrl.length > L.baseUrl) problems.push({ path: `${path}/base_url`, message: `must be at most ${L.baseUrl} characters` });
    else {
      try {
        const { url } = await checkUrl(baseUrl, deps.guard);
        if (url.hash) problems.push({ path: `${path}/base_url`, message: "must have no fragment" });
      } catch (error) {
        if (!(error instanceof BlockedUrlError)) throw error;
        problems.push({ path: `${path}/base_url`, message: error.message });
      }
    }
  }
  if (problems.length > 0) throw AppError.badRequest("The model settings are invalid.", problems);
  let apiKey: string | null;
  if (input.provider === "builtin" || input.api_key === null) apiKey = null;
  else if (input.api_key !== undefined) apiKey = deps.cipher.encrypt(input.api_key, llmKeyContext(level.kind, level.id));
  else apiKey = previous && previous.provider === input.provider && previous.base_url === baseUrl ? previous.api_key : null;
  return { provider: input.provider, base_url: baseUrl === null ? null : trimBase(baseUrl), model, api_key: apiKey };
}

/** The base URL without trailing slashes on its path (its query, if any, is kept). */
function trimBase(raw: string): string {
  const url = new URL(raw);
  url.pathname = url.pathname.replace(/\/+$/, "");
  return url.href.replace(/\/(?=$|\?)/, "");
}

// --- the org-wide model -----------------------------------------------------------------------

/** What answers for the org's agents without their own override, and where each part comes from. */
export async function orgLlmView(deps: Pick<Deps, "cipher" | "config" | "db">, orgId: string) {
  const [row] = await deps.db.select().from(orgLlmSettings).where(eq(orgLlmSettings.orgId, orgId));
  const override: LlmOverride | null = row ? { provider: row.provider, base_url: row.baseUrl, model: row.model, api_key: row.apiKey } : null;
  const effective = resolveLlm(deps, override ? { kind: "org", id: orgId, override } : null);
  return {
    // The operator's URL and key are not the org's business; its provider and model are.
    operator_default: { provider: deps.config.llm.provider, model: deps.config.llm.model },
    override: overrideView(override),
    effective: { provider: effective.provider, model: effective.model, source: effective.source },
  };
}

export async function setOrgLlm(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "invalidation" | "now">,
  orgId: string,
  actor: Actor,
  input: LlmOverrideInput,
) {
  const [row] = await deps.db.select().from(orgLlmSettings).where(eq(orgLlmSettings.orgId, orgId));
  const previous: LlmOverride | null = row ? { provider: row.provider, base_url: row.baseUrl, model: row.model, api_key: row.apiKey } : null;
  const stored = await llmOverrideToStore(deps, "", input, previous, { kind: "org", id: orgId });
  const values = { provider: stored.provider, baseUrl: stored.base_url, model: stored.model, apiKey: stored.api_key, updatedAt: deps.now() };
  await deps.db.transaction(async (tx) => {
    await tx
      .insert(orgLlmSettings)
      .values({ orgId, ...values })
      .onConflictDoUpdate({ target: orgLlmSettings.orgId, set: values });
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId,
        actor,
        action: "llm_settings.changed",
        objectType: "org",
        objectId: orgId,
        summary: { provider: stored.provider, model: stored.model, api_key_set: stored.api_key !== null },
      },
    );
  });
  deps.invalidation.publish("org_settings", orgId); // src/agents/turn-settings.ts
  return orgLlmView(deps, orgId);
}

export async function clearOrgLlm(deps: Pick<Deps, "cipher" | "config" | "db" | "invalidation" | "now">, orgId: string, actor: Actor) {
  await deps.db.transaction(async (tx) => {
    const removed = await tx.delete(orgLlmSettings).where(eq(orgLlmSettings.orgId, orgId)).returning({ orgId: orgLlmSettings.orgId });
    if (removed.length > 0)
      await recordActivity({ db: tx, now: deps.now }, { orgId, actor, action: "llm_settings.cleared", objectType: "org", objectId: orgId });
  });
  deps.invalidation.publish("org_settings", orgId); // src/agents/turn-settings.ts
  return orgLlmView(deps, orgId);
}
