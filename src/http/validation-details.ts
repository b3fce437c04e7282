// The `details` of a 400 validation failure: one entry per failing field, worded for a person.
// Elysia words a value outside a union of literals as "should be one of: 'string', 'string'" (the
// members' types); here a union of constants names its allowed values, a single literal names its
// value, and a union of shapes (an object or null, say) reports what is wrong inside the one shape
// the value has, so a bad field nested in it is named at its own path.
import type { ValidationError } from "elysia";
import type { ErrorDetail } from "../errors.ts";

const LITERAL = 32; // TypeBox ValueErrorType.Literal
const UNION = 62; // TypeBox ValueErrorType.Union

interface Issue {
  type?: number;
  path?: string;
  message?: string;
  summary?: string;
  value?: unknown;
  schema?: { const?: unknown; type?: unknown; anyOf?: { const?: unknown; type?: unknown }[] };
  errors?: Iterable<Issue>[];
}

function propertyOf(path: string): string | null {
  return path && path !== "/" ? path.slice(1).replaceAll("/", ".") : null;
}

function phrase(path: string, rest: string): string {
  const property = propertyOf(path);
  return property ? `Property '${property}' ${rest}` : `Value ${rest}`;
}

/** The allowed values of a union whose members are all constants (or null), quoted as JSON. */
function allowedValues(members: { const?: unknown; type?: unknown }[]): string[] | null {
  if (members.length === 0 || !members.every((m) => "const" in m || m.type === "null")) return null;
  return members.map((m) => JSON.stringify("const" in m ? m.const : null));
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** The failures inside the one member of a union of shapes that has the value's JSON type, if exactly one has. */
function insideShape(issue: Issue): Issue[] | null {
  const members = issue.schema?.anyOf ?? [];
  const type = jsonType(issue.value);
  if (type !== "object" && type !== "array") return null;
  const matching = members.map((m, i) => [m, i] as const).filter(([m]) => m.type === type);
  if (matching.length !== 1) return null;
  const errors = issue.errors?.[matching[0]![1]];
  return errors ? [...errors] : null;
}

function describe(issue: Issue, out: ErrorDetail[]) {
  const path = issue.path || "/";
  if (issue.type === UNION && issue.schema?.anyOf) {
    const allowed = allowedValues(issue.schema.anyOf);
    if (allowed) return void out.push({ path, message: phrase(path, `should be one of: ${allowed.join(", ")}`) });
    const inner = insideShape(issue);
    if (inner && inner.length > 0) {
      for (const nested of inner) describe(nested, out);
      return;
    }
  }
  if (issue.type === LITERAL && issue.schema && "const" in issue.schema)
    return void out.push({ path, message: phrase(path, `should be ${JSON.stringify(issue.schema.const)}`) });
  out.push({ path, message: issue.summary ?? issue.message ?? "is invalid" });
}

/** One detail per failing path (the first failure found there), in the order TypeBox reports them. */
export function validationDetails(error: ValidationError): ErrorDetail[] {
  return issueDetails(error.all as Issue[]);
}

/** The same for TypeBox's own errors (`Value.Errors`), where a route checks a body it read itself. */
export function issueDetails(issues: Iterable<unknown>): ErrorDetail[] {
  const all: ErrorDetail[] = [];
  for (const issue of issues as Iterable<Issue>) describe(issue, all);
  const seen = new Set<string>();
  return all.filter((d) => !seen.has(d.path) && seen.add(d.path));
}
