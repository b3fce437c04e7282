// The one check of a text field an agent or its model settings hold: a length in range (blank
// counts as empty) and no control characters (tab, LF and CR allowed only in multi-line text).
// Shared by the agent's own fields (src/agents/service.ts) and its model settings
// (src/agents/llm-settings.ts), so both word a refusal the same way.
import type { ErrorDetail } from "../errors.ts";

const CONTROL = /[\x00-\x1f\x7f]/;
const CONTROL_MULTILINE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

/** Adds a problem at `path` unless `value` is absent or fits; `min` 0 allows an empty value. */
export function checkText(problems: ErrorDetail[], path: string, value: string | undefined, min: number, max: number, options: { multiline?: boolean } = {}) {
  if (value === undefined) return;
  const bad = options.multiline ? CONTROL_MULTILINE : CONTROL;
  if (value.trim().length < min || value.length > max)
    problems.push({ path, message: min > 0 ? `must be ${min} to ${max} characters` : `must be at most ${max} characters` });
  else if (bad.test(value)) problems.push({ path, message: "must not contain control characters" });
}
