// A campaign's audience rule on the page: the rule in words, and its form (one row per condition,
// a blank row to add one, a box to remove each, a button that clears the rule). What the form's
// values mean and how they are checked is campaigns-audience.ts.
import { type Html, html } from "../../html/html.ts";
import { checkbox, field, type FieldErrors, type FormValues, select } from "../kit/index.ts";
import type { AUDIENCE_OPS, AudienceRule, CAMPAIGN_LIMITS } from "../../campaigns/model.ts";

type Op = (typeof AUDIENCE_OPS)[number];

/** The comparisons in the form's order (that of AUDIENCE_OPS) and their words. */
export const OP_LABELS: Record<Op, string> = { eq: "is", neq: "is not", exists: "is set", not_exists: "is not set", in: "is one of" };

/** A number as the form reads one. */
export const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** A stored value as the form writes it (parseConditionValue reads it back to the same value). */
export function formatConditionValue(value: unknown): string {
  if (value === undefined) return "";
  if (Array.isArray(value)) return value.map((v) => formatScalar(v, true)).join(", ");
  return formatScalar(value, false);
}

function formatScalar(value: unknown, inList: boolean): string {
  if (typeof value !== "string") return String(value);
  const needsQuotes =
    value === "" ||
    value !== value.trim() ||
    value === "true" ||
    value === "false" ||
    NUMBER.test(value) ||
    value.startsWith('"') ||
    (inList && (value.includes(",") || value.includes('"')));
  return needsQuotes ? JSON.stringify(value) : value;
}

/** The rule in words, for the campaign page and the list. */
export function audienceSummary(rule: AudienceRule): Html {
  const value = (v: unknown) => (v !== undefined ? html` <code>${formatConditionValue(v)}</code>` : "");
  return html`<ul>${rule.all.map((c) => html`<li><code>${c.trait}</code> ${OP_LABELS[c.op]}${value(c.value)}</li>`)}</ul>`;
}

export interface AudienceFormProps {
  action: string;
  values: FormValues;
  errors: FieldErrors;
  hasRule: boolean;
  limits: typeof CAMPAIGN_LIMITS;
}

function conditionRow(p: AudienceFormProps, i: number, isNew: boolean): Html {
  const { values: v, errors: e, limits: L } = p;
  const traitHint = isNew ? "A trait key, or a dotted path such as plan.tier. Leave empty to add nothing." : undefined;
  const valueHint = isNew
    ? `Numbers and true/false are compared as such; quote text that looks like one ("42"). ` +
      `For “is one of”, up to ${L.inValues} values separated by commas. Empty for “is set” and “is not set”.`
    : undefined;
  const ops = (Object.keys(OP_LABELS) as Op[]).map((op) => ({ value: op, label: OP_LABELS[op] }));
  return html`<fieldset><legend>${isNew ? "Add a condition" : `Condition ${i + 1}`}</legend>
<div class="grid2">
${field({ name: `a${i}_trait`, label: "Trait", value: v[`a${i}_trait`], error: e[`a${i}_trait`], maxLength: L.traitPath, hint: traitHint })}
${select({ name: `a${i}_op`, label: "Comparison", value: v[`a${i}_op`] ?? "eq", error: e[`a${i}_op`], options: ops })}
</div>
${field({ name: `a${i}_value`, label: "Value", value: v[`a${i}_value`], error: e[`a${i}_value`], hint: valueHint })}
${isNew ? "" : checkbox({ name: `a${i}_remove`, label: "Remove this condition", checked: v[`a${i}_remove`] === "on" })}
</fieldset>`;
}

/** The form (for automation:manage on a campaign that is not archived). */
export function AudienceForm(p: AudienceFormProps): Html {
  const { values: v, errors: e, limits: L } = p;
  const count = Math.min(Math.max(Number(v.a_count) || 0, 0), L.conditions);
  const more = count < L.conditions ? conditionRow(p, count, true) : html`<p class="muted">A rule has at most ${String(L.conditions)} conditions.</p>`;
  const clear = p.hasRule ? html`<button type="submit" name="do" value="clear" class="danger">Remove the rule</button>` : "";
  return html`<form method="post" action="${p.action}" novalidate aria-label="Audience rule">
<input type="hidden" name="a_count" value="${String(count)}">
<input type="hidden" name="audience_version" value="${v.audience_version ?? ""}">
${e.audience ? html`<p class="field-error" id="f-audience">${e.audience}</p>` : ""}
${Array.from({ length: count }, (_, i) => conditionRow(p, i, false))}
${more}
<div class="actions"><button type="submit" name="do" value="save" data-busy="Saving…">Save audience</button>${clear}</div>
</form>`;
}
