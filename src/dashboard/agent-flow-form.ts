// An agent's conversation flow (flow_config: steps and custom variables) as form rows, one row a
// step or variable: each value as the text of its row, and the submitted rows as the flow to save.
import type { Agent } from "../agents/service.ts";
import { type FieldErrors, formList, jsonField } from "./kit/index.ts";

/**
 * A step or custom variable as the text of its row. Plain text stands for a string; anything else
 * is its JSON. A string that would read as JSON (or has spaces at its ends) is shown quoted, so
 * every value comes back from its row unchanged (parseFlowItem).
 */
export function flowItemText(value: unknown): string {
  if (typeof value === "string" && value !== "" && value === value.trim() && !/^[{["]/.test(value)) {
    try {
      JSON.parse(value);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value);
}

/** A row's text as a value: JSON when it reads as JSON, else the text; a row starting like JSON must be JSON. Blank rows are skipped. */
export function parseFlowItem(text: string): { blank: true } | { value: unknown } | { error: string } {
  const t = text.trim();
  if (t === "") return { blank: true };
  if (/^[{["]/.test(t)) {
    const parsed = jsonField(t);
    return "error" in parsed ? { error: `${parsed.error} Write plain text, or JSON such as {"ask": "email"}.` } : parsed;
  }
  try {
    return { value: JSON.parse(t) as unknown }; // a number, true, false or null
  } catch {
    return { value: t };
  }
}

export interface FlowRows {
  steps: string[];
  variables: string[];
  removeSteps: Set<number>;
  removeVariables: Set<number>;
}

export function flowRowsOf(agent: Agent): FlowRows {
  return {
    steps: [...(agent.flowConfig.steps ?? []).map(flowItemText), ""],
    variables: [...(agent.flowConfig.custom_variables ?? []).map(flowItemText), ""],
    removeSteps: new Set(),
    removeVariables: new Set(),
  };
}

function indexes(values: string[]): Set<number> {
  return new Set(values.map(Number).filter((n) => Number.isInteger(n) && n >= 0));
}

export function flowRowsFrom(body: unknown): FlowRows {
  return {
    steps: formList(body, "step"),
    variables: formList(body, "variable"),
    removeSteps: indexes(formList(body, "remove_step")),
    removeVariables: indexes(formList(body, "remove_variable")),
  };
}

/** The rows as the flow to save, or the field errors of the rows that do not read. */
export function flowFrom(rows: FlowRows): { input: { steps: unknown[]; custom_variables: unknown[] }; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const collect = (texts: string[], removed: Set<number>, key: string, noun: string) => {
    const out: unknown[] = [];
    texts.forEach((text, i) => {
      if (removed.has(i)) return;
      const item = parseFlowItem(text);
      if ("error" in item) errors[`${key}_${i}`] = `${noun} ${i + 1}: ${item.error}`;
      else if ("value" in item) out.push(item.value);
    });
    return out;
  };
  const steps = collect(rows.steps, rows.removeSteps, "step", "Step");
  const custom_variables = collect(rows.variables, rows.removeVariables, "variable", "Variable");
  return { input: { steps, custom_variables }, errors };
}
