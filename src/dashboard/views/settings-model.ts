// The organisation's model: which provider answers now (and who set it), and the form choosing the
// provider for every agent without its own (the key write-only: never shown).
import { type Html, html } from "../../html/html.ts";
import type { orgLlmView } from "../../agents/llm-settings.ts";
import { type FieldErrors, field, type FormValues, select, submit } from "../kit/fields.ts";

export interface ModelProps {
  llm: Awaited<ReturnType<typeof orgLlmView>>;
  values: FormValues;
  errors: FieldErrors;
}

export function OrgModel(p: ModelProps): Html {
  const { llm, values: v, errors: e } = p;
  const source = llm.effective.source === "org" ? "this organisation" : "the operator";
  const provider = select({
    name: "llm_provider",
    label: "Provider for every agent without its own",
    value: v.llm_provider ?? llm.override?.provider ?? "",
    error: e.llm_provider,
    options: [
      { value: "", label: `The operator's default (${llm.operator_default.provider})` },
      { value: "builtin", label: "Built-in (answers from the knowledge base, no key)" },
      { value: "openai", label: "OpenAI-compatible" },
      { value: "anthropic", label: "Anthropic" },
    ],
  });
  const key = field({
    name: "llm_api_key",
    label: "API key",
    type: "password",
    value: "",
    error: e.llm_api_key,
    hint: llm.override?.api_key_set ? "A key is stored (never shown). Leave blank to keep it." : "Write-only: stored encrypted, never shown again.",
  });
  return html`<section class="panel" aria-labelledby="llm-h"><h2 id="llm-h">Model</h2>
<p class="muted">Answers now come from <strong>${llm.effective.provider}</strong>${llm.effective.model ? html` (${llm.effective.model})` : ""}, \
set by ${source}. An agent's own model, on its page, comes first.</p>
<form method="post" action="/dashboard/settings/llm" novalidate>
${provider}
<div class="grid2">
${field({ name: "llm_model", label: "Model", value: v.llm_model ?? llm.override?.model ?? "", error: e.llm_model })}
${field({
  name: "llm_base_url",
  label: "Base URL",
  type: "url",
  value: v.llm_base_url ?? llm.override?.base_url ?? "",
  error: e.llm_base_url,
  hint: "Optional; https.",
})}
</div>
${key}
<div class="actions">${submit("Save model", { busy: "Saving…" })}</div>
</form>
</section>`;
}
