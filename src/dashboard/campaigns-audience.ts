// The audience rule of a campaign as a dashboard form: one row per condition (trait,
// comparison, value), a blank row to add one, a box to remove each, and a button that clears the
// rule. The form's values become the same `audience` object /api/campaigns accepts, checked by the
// same TypeBox schema (src/campaigns/schemas.ts AudienceInput) and then by editCampaign, so the
// form has exactly the API's limits; each problem is shown next to its field.
//
// A value is written as text. Numbers and true/false mean numbers and booleans (traits are JSON);
// anything else is text, and quotes make text of what would otherwise be read as a number or a
// boolean ("42", "true", " padded "). For "is one of", values are separated by commas (a quoted
// value may contain one). formatConditionValue writes a stored value back so that it parses to
// the same value again.
import { createHash } from "node:crypto";
import { Value } from "@sinclair/typebox/value";
import { AUDIENCE_OPS, type AudienceInput, type AudienceRule, CAMPAIGN_LIMITS } from "../campaigns/model.ts";
import { AudienceInput as AudienceSchema } from "../campaigns/schemas.ts";
import type { AppError } from "../errors.ts";
import { type FieldErrors, type FormValues } from "./kit/index.ts";
import { formatConditionValue, NUMBER, OP_LABELS } from "./views/campaign-audience.ts";

const L = CAMPAIGN_LIMITS;
type Op = (typeof AUDIENCE_OPS)[number];
type Scalar = string | number | boolean;

// The form's words and the writing of a stored value are the view's (views/campaign-audience.ts).
export { formatConditionValue, OP_LABELS } from "./views/campaign-audience.ts";

/** One value as written in the form; an error message when it cannot be read. */
function parseScalar(text: string): Scalar | { error: string } {
  const t = text.trim();
  if (t === "true") return true;
  if (t === "false") return false;
  if (NUMBER.test(t)) {
    const n = Number(t);
    return Number.isFinite(n) ? n : { error: "This number is too large." };
  }
  if (t.startsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(t);
      if (typeof parsed === "string") return parsed;
    } catch {
      // reported below
    }
    return { error: 'A quoted value must end with its closing quote: "like this".' };
  }
  return t;
}

/** Splits "a, b, \"c, d\"" at the commas outside quotes. */
function splitList(text: string): string[] {
  const items: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === "\\" && i + 1 < text.length) {
      current += c + text[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === "," && !quoted) {
      items.push(current);
      current = "";
    } else current += c;
  }
  items.push(current);
  return items;
}

/** A condition's value from the form: a scalar, a list (for `in`), nothing (exists), or the error to show. */
export function parseConditionValue(op: Op, text: string): { value?: Scalar | Scalar[] } | { error: string } {
  const t = text.trim();
  if (op === "exists" || op === "not_exists") return t === "" ? {} : { error: `“${OP_LABELS[op]}” takes no value: leave it empty.` };
  if (t === "") return { error: op === "in" ? "Write the values, separated by commas." : 'Write a value (write "" for empty text).' };
  if (op !== "in") {
    const v = parseScalar(t);
    if (typeof v === "object") return v;
    if (typeof v === "string" && v.length > L.value) return { error: `A value has at most ${L.value} characters (this has ${v.length}).` };
    return { value: v };
  }
  const items = splitList(t);
  if (items.length > L.inValues) return { error: `At most ${L.inValues} values (this has ${items.length}).` };
  const values: Scalar[] = [];
  for (const item of items) {
    if (item.trim() === "") return { error: 'A value between two commas is empty (quote empty text: "").' };
    const v = parseScalar(item);
    if (typeof v === "object") return v;
    if (typeof v === "string" && v.length > L.value) return { error: `A value has at most ${L.value} characters (one has ${v.length}).` };
    values.push(v);
  }
  return { value: values };
}

/** A short fingerprint of the saved rule: a form opened before someone else changed the rule is refused. */
export function audienceVersion(rule: AudienceRule | null): string {
  return createHash("sha256")
    .update(JSON.stringify(rule ?? null))
    .digest("base64url")
    .slice(0, 16);
}

/** The form's values as the stored rule shows them. */
export function audienceValues(rule: AudienceRule | null): FormValues {
  const v: FormValues = { a_count: String(rule?.all.length ?? 0), audience_version: audienceVersion(rule) };
  rule?.all.forEach((c, i) => {
    v[`a${i}_trait`] = c.trait;
    v[`a${i}_op`] = c.op;
    v[`a${i}_value`] = formatConditionValue(c.value);
  });
  return v;
}

/** Form rows that carry a condition, in order: the index in the submitted list → the form row. */
function submittedRows(v: FormValues): number[] {
  const count = Math.min(Math.max(Number(v.a_count) || 0, 0), L.conditions);
  const rows: number[] = [];
  for (let i = 0; i <= count; i++) {
    if (i < count && v[`a${i}_remove`] === "on") continue;
    if (i === count && (v[`a${i}_trait`] ?? "").trim() === "" && (v[`a${i}_value`] ?? "").trim() === "") continue;
    rows.push(i);
  }
  return rows;
}

/**
 * The form as the API's `audience` (null: no rule), or the errors by field. Rows are the stored
 * conditions 0..a_count-1 (each may be removed) and one blank row at a_count to add a condition.
 */
export function audienceFrom(v: FormValues): { audience: AudienceInput | null; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const rows = submittedRows(v);
  const all: AudienceInput["all"] = [];
  for (const i of rows) {
    const trait = (v[`a${i}_trait`] ?? "").trim();
    const op = v[`a${i}_op`] as Op;
    if (trait === "") errors[`a${i}_trait`] = "Name a trait (a key, or a dotted path such as plan.tier).";
    else if (trait.length > L.traitPath) errors[`a${i}_trait`] = `At most ${L.traitPath} characters (this has ${trait.length}).`;
    if (!AUDIENCE_OPS.includes(op)) {
      errors[`a${i}_op`] = "Choose a comparison.";
      continue;
    }
    const parsed = parseConditionValue(op, v[`a${i}_value`] ?? "");
    if ("error" in parsed) errors[`a${i}_value`] = parsed.error;
    all.push({ trait, op, ...("value" in parsed && parsed.value !== undefined ? { value: parsed.value } : {}) });
  }
  if (all.length > L.conditions) errors.audience = `A rule has at most ${L.conditions} conditions.`;
  if (Object.keys(errors).length > 0 || all.length === 0) return { audience: null, errors };
  const audience = { all };
  // The API's own schema, so the form can never accept what /api/campaigns refuses.
  const first = Value.Errors(AudienceSchema, audience).First();
  if (first) Object.assign(errors, audienceErrors([{ path: first.path, message: first.message }], v, ""));
  return { audience, errors };
}

/**
 * Errors naming conditions by their place in the submitted list (`/all/2/trait` from the schema,
 * `/audience/all/2/value` from the service) as form fields (`a5_value`: removed rows shift places).
 */
export function audienceErrors(details: { path?: string; message: string }[], v: FormValues, prefix = "/audience"): FieldErrors {
  const rows = submittedRows(v);
  const out: FieldErrors = {};
  for (const d of details) {
    const m = new RegExp(`^${prefix}/all/(\\d+)(?:/(trait|op|value))?`).exec(d.path ?? "");
    const row = m ? rows[Number(m[1])] : undefined;
    const key = m && row !== undefined ? `a${row}_${m[2] ?? "value"}` : "audience";
    out[key] ??= d.message;
  }
  return out;
}

/** Service errors (a 400 from editCampaign) as form fields. */
export function audienceServiceErrors(error: AppError, v: FormValues): FieldErrors {
  const errors = audienceErrors(error.details ?? [], v);
  return Object.keys(errors).length > 0 ? errors : { audience: error.message };
}
