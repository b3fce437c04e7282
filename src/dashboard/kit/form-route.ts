// The one shape of a dashboard form post: read the body as strings, validate it into the service's
// input (or field errors), call the service, and answer with a redirect carrying a flash; when the
// input or the service says no (an AppError the form can show), render the same page again with
// the entered values and each error next to its field (status 400 for the form's own checks, the
// service's status for its refusals; a page may keep another). Route schemas the pages share sit
// here too: every form body is bounded before a page reads it.
import { t } from "elysia";
import { AppError } from "../../errors.ts";
import type { FieldErrors, FormValues } from "./fields.ts";

/** A page rendered again after a refused post. */
export interface Refused {
  values: FormValues;
  errors: FieldErrors;
  status: number;
}

export interface FormSpec<Input, Result> {
  values: FormValues;
  /** The service's input, or the errors that stop the post before the service is called. */
  validate(values: FormValues): { input: Input; errors: FieldErrors };
  call(input: Input): Promise<Result>;
  /** The answer after the call: a redirect with a flash, or a page shown once (a secret). */
  done(result: Result): Response | Promise<Response>;
  /** The page again, with the values and errors. */
  render(refused: Refused): Response | Promise<Response>;
  /** A service's refusal as field errors, or null to let it through to withMember's error page. */
  refused(error: AppError): FieldErrors | null;
}

function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}

/** Validate → call → done, or render again with the field errors. */
export async function submitForm<Input, Result>(spec: FormSpec<Input, Result>): Promise<Response> {
  const { input, errors } = spec.validate(spec.values);
  if (hasErrors(errors)) return spec.render({ values: spec.values, errors, status: 400 });
  let result: Result;
  try {
    result = await spec.call(input);
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    const shown = spec.refused(error);
    if (!shown || !hasErrors(shown)) throw error;
    return spec.render({ values: spec.values, errors: shown, status: error.status });
  }
  return spec.done(result);
}

/**
 * A service's validation details as field errors: `key` names the form field of a detail's path
 * (split into its parts), the first message for a field wins, and with none placed the message
 * goes to `fallback`. A message starts with a capital and ends with a full stop unless `plain`;
 * `text` words a detail otherwise (e.g. naming the header it is about).
 */
export function detailErrors(
  error: AppError,
  key: (parts: string[]) => string,
  fallback: string,
  options: { plain?: boolean; text?: (detail: { path: string; message: string }) => string } = {},
): FieldErrors {
  const out: FieldErrors = {};
  for (const d of error.details ?? []) {
    const message = options.text ? options.text(d) : d.message;
    out[key((d.path ?? "").split("/").filter(Boolean))] ??= options.plain ? message : `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;
  }
  if (!hasErrors(out)) out[fallback] = error.message;
  return out;
}

/** `/:id` of a page: any short string (the service answers 404 for what it does not know). */
export const IdParams = t.Object({ id: t.String({ maxLength: 64 }) });

/**
 * A form body: every field a bounded string, or a bounded list of them (repeated names: checkboxes,
 * multi-selects). Each page states its own bounds; the page reports what is wrong with each field.
 */
export function formBody(limits: { text: number; items: number; item?: number }) {
  return t.Record(
    t.String(),
    t.Union([t.String({ maxLength: limits.text }), t.Array(t.String({ maxLength: limits.item ?? limits.text }), { maxItems: limits.items })]),
  );
}
