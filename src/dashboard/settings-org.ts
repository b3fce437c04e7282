// The org:manage settings' actions: create a widget key, set the allowed origins, set the
// organisation's model. Each answers a redirect with a flash, or the page again with the error
// next to its field. Through src/orgs/widget-access.ts, src/sdk/settings.ts and
// src/agents/service.ts, as /api/widget/* and /api/llm do.
import type { ProviderKind } from "../agents/llm/types.ts";
import { AGENT_LIMITS } from "../agents/agent-input.ts";
import { clearOrgLlm, setOrgLlm } from "../agents/llm-settings.ts";
import { memberActor } from "../kit/actor.ts";
import { createWidgetKey, WIDGET_KEY_LIMITS } from "../orgs/widget-access.ts";
import { ORIGIN_LIMITS, setAllowedOrigins } from "../sdk/settings.ts";
import { type DashboardContext, detailErrors, type FieldErrors, type FormValues, redirect, submitForm } from "./kit/index.ts";
import { settingsPage } from "./settings-page.ts";

const actor = (ctx: DashboardContext) => memberActor(ctx.principal.member.id);

export function createKey(ctx: DashboardContext, values: FormValues): Promise<Response> {
  return submitForm({
    values,
    validate: (v) => {
      const label = (v.label ?? "").trim();
      return {
        input: label,
        errors: (label.length > WIDGET_KEY_LIMITS.label ? { label: `At most ${WIDGET_KEY_LIMITS.label} characters.` } : {}) as FieldErrors,
      };
    },
    call: (label) => createWidgetKey(ctx.deps, ctx.orgId, actor(ctx), label),
    done: () => redirect(ctx.deps, "/dashboard/settings/widget#keys-h", "Widget key created: its snippet is ready to copy."),
    render: (refused) => settingsPage(ctx, {}, refused),
    refused: (error) => (error.status === 409 ? { label: error.message } : null),
  });
}

export function setOrigins(ctx: DashboardContext, values: FormValues): Promise<Response> {
  const list = (values.origins ?? "")
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);
  return submitForm({
    values,
    validate: () => ({
      input: list,
      errors: (list.length > ORIGIN_LIMITS.origins ? { origins: `At most ${ORIGIN_LIMITS.origins} origins (this has ${list.length}).` } : {}) as FieldErrors,
    }),
    call: (origins) => setAllowedOrigins(ctx.deps, ctx.orgId, actor(ctx), origins),
    done: () =>
      redirect(ctx.deps, "/dashboard/settings/widget#origins-h", list.length === 0 ? "Every site may use the widget keys." : "Allowed origins saved."),
    render: (refused) => settingsPage(ctx, {}, refused),
    refused: (error) => {
      if (error.status !== 400) return null;
      // The detail names the origin by its position: said with its line.
      const index = Number((error.details?.[0]?.path ?? "").split("/").pop());
      const line = Number.isInteger(index) ? ` Line ${index + 1}: ${list[index]}` : "";
      return { origins: `${error.message}${line}` };
    },
  });
}

/** The provider chosen: none is the operator's default (the override is cleared); the key is write-only. */
export async function setModel(ctx: DashboardContext, raw: FormValues): Promise<Response> {
  const provider = raw.llm_provider ?? "";
  if (provider === "") {
    await clearOrgLlm(ctx.deps, ctx.orgId, actor(ctx));
    return redirect(ctx.deps, "/dashboard/settings#llm-h", "Agents without their own model use the operator's default.");
  }
  return submitForm({
    // The key is never written back into the page.
    values: { ...raw, llm_api_key: "" },
    validate: () => {
      const model = (raw.llm_model ?? "").trim();
      const base = (raw.llm_base_url ?? "").trim();
      const key = raw.llm_api_key ?? "";
      const errors: FieldErrors = {};
      if (!["builtin", "openai", "anthropic"].includes(provider)) return { input: null, errors: { llm_provider: "Choose a provider." } };
      if (model.length > AGENT_LIMITS.model) errors.llm_model = `At most ${AGENT_LIMITS.model} characters.`;
      if (base.length > AGENT_LIMITS.baseUrl) errors.llm_base_url = `At most ${AGENT_LIMITS.baseUrl} characters.`;
      if (key.length > AGENT_LIMITS.apiKey) errors.llm_api_key = `At most ${AGENT_LIMITS.apiKey} characters.`;
      return { input: { provider: provider as ProviderKind, model: model || null, base_url: base || null, ...(key ? { api_key: key } : {}) }, errors };
    },
    call: (input) => setOrgLlm(ctx.deps, ctx.orgId, actor(ctx), input!),
    done: () => redirect(ctx.deps, "/dashboard/settings#llm-h", "Model saved."),
    render: (refused) => settingsPage(ctx, {}, refused),
    refused: (error) => (error.status === 400 ? detailErrors(error, ([first]) => `llm_${first ?? "provider"}`, "llm_provider") : null),
  });
}
