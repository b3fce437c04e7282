// A custom action's form as the service's input: the fields create and edit share, checked as the
// API's schema checks them (the service checks the rest), headers written one "Name: value" a line,
// and a service's validation details as field errors.
import type { AppError } from "../errors.ts";
import { CUSTOM_ACTION_LIMITS, METHODS, type Method } from "../integrations/custom-actions.ts";
import type { JsonSchemaObject } from "../tools/types.ts";
import { detailErrors, type FieldErrors, type FormValues, jsonField } from "./kit/index.ts";

export const DESCRIPTION_MAX = 1000;
export const URL_MAX = 2048;

function parseHeaders(text: string): { headers: Record<string, string>; error?: string } {
  const headers: Record<string, string> = {};
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) return { headers, error: `Line ${i + 1}: write “Name: value”.` };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { headers };
}

/** The fields create and edit share, checked as the API's schema checks them; the service checks the rest. */
export function commonFields(values: FormValues, errors: FieldErrors) {
  const description = (values.description ?? "").trim();
  const url = (values.url ?? "").trim();
  const method = (METHODS as readonly string[]).includes(values.method ?? "") ? (values.method as Method) : null;
  if (!method) errors.method = "Choose a method.";
  if (!url) errors.url = "Give the endpoint's URL.";
  else if (url.length > URL_MAX) errors.url = `At most ${URL_MAX} characters.`;
  if (!description) errors.description = "Say what the action does.";
  else if (description.length > DESCRIPTION_MAX) errors.description = `At most ${DESCRIPTION_MAX} characters.`;
  const parsed = parseHeaders(values.headers ?? "");
  if (parsed.error) errors.headers = parsed.error;
  else if (Object.keys(parsed.headers).length > CUSTOM_ACTION_LIMITS.headers) errors.headers = `At most ${CUSTOM_ACTION_LIMITS.headers} headers.`;
  let schema: JsonSchemaObject | undefined;
  if ((values.input_schema ?? "").trim()) {
    const json = jsonField(values.input_schema!);
    if ("error" in json) errors.input_schema = json.error;
    else if (!json.value || typeof json.value !== "object" || Array.isArray(json.value)) errors.input_schema = "A JSON object.";
    else schema = json.value as JsonSchemaObject;
  }
  return { description, url, method, headers: parsed.headers, schema };
}

/** A service's validation details as field errors (`/headers/X-Key` → headers). */
export function errorsFromService(error: AppError): FieldErrors {
  // A header's detail names the header first.
  const text = (d: { path: string; message: string }) => (d.path.startsWith("/headers/") ? `${d.path.slice("/headers/".length)} ${d.message}` : d.message);
  return detailErrors(error, ([first]) => first ?? "url", "url", { text });
}
