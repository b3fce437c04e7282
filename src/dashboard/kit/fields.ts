// Form controls: each labelled, with its hint and its error next to it (aria-invalid,
// aria-describedby), the error summary above a form, submit and one-button action forms, and the
// form body read as plain strings. Every page's forms are made of these.
import { attrs, type Html, html } from "../../html/html.ts";
import { JsonInputError, parseJsonBounded } from "../../http/json.ts";

/** Field errors by field name, shown next to the field; the submitted values are kept. */
export type FieldErrors = Record<string, string>;
export type FormValues = Record<string, string | undefined>;

/** A form body (urlencoded) as single strings: a repeated field keeps its last value. */
export function formValues(body: unknown): FormValues {
  const out: FormValues = {};
  if (!body || typeof body !== "object") return out;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === "string") out[key] = value;
    else if (Array.isArray(value) && typeof value.at(-1) === "string") out[key] = value.at(-1) as string;
  }
  return out;
}

/** All values of a repeated form field (checkbox groups). */
export function formList(body: unknown, name: string): string[] {
  if (!body || typeof body !== "object") return [];
  const value = (body as Record<string, unknown>)[name];
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The attributes saying a control failed and where its hint and error are. */
function described(id: string, error: string | undefined, hint: string | undefined): Html {
  const ids = [error ? `${id}-error` : "", hint ? `${id}-hint` : ""].filter(Boolean).join(" ");
  return attrs({ "aria-invalid": error ? "true" : null, "aria-describedby": ids || null });
}

function fieldExtras(id: string, error: string | undefined, hint: string | undefined): Html {
  const hintLine = hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : "";
  const errorLine = error ? html`<p class="field-error" id="${id}-error">${error}</p>` : "";
  return html`${hintLine}${errorLine}`;
}

/** The class of a field's wrapper: marked when the field failed. */
const fieldClass = (error: string | undefined) => `field${error ? " has-error" : ""}`;

export interface FieldOptions {
  name: string;
  label: string;
  value?: string | null;
  error?: string;
  hint?: string;
  type?: "text" | "email" | "url" | "password" | "number" | "search" | "color" | "date";
  required?: boolean;
  maxLength?: number;
  placeholder?: string;
  /** Extra attributes (e.g. data-slug-from). */
  attrs?: Record<string, string | boolean>;
}

/** A labelled input with its hint and its error. */
export function field(o: FieldOptions): Html {
  const id = `f-${o.name}`;
  const limits = attrs({ required: o.required, maxlength: o.maxLength || null, placeholder: o.placeholder || null });
  const extra = html`${limits}${described(id, o.error, o.hint)}${attrs(o.attrs ?? {})}`;
  const input = html`<input id="${id}" name="${o.name}" type="${o.type ?? "text"}" value="${o.value ?? ""}"${extra}>`;
  return html`<div class="${fieldClass(o.error)}"><label for="${id}">${o.label}</label>${input}${fieldExtras(id, o.error, o.hint)}</div>`;
}

export function textarea(o: Omit<FieldOptions, "type"> & { rows?: number }): Html {
  const id = `f-${o.name}`;
  const limits = attrs({ required: o.required, maxlength: o.maxLength || null });
  const extra = html`${limits}${described(id, o.error, o.hint)}${attrs(o.attrs ?? {})}`;
  const box = html`<textarea id="${id}" name="${o.name}" rows="${o.rows ?? 6}"${extra}>${o.value ?? ""}</textarea>`;
  return html`<div class="${fieldClass(o.error)}"><label for="${id}">${o.label}</label>${box}${fieldExtras(id, o.error, o.hint)}</div>`;
}

export function select(o: Omit<FieldOptions, "type"> & { options: { value: string; label: string }[] }): Html {
  const id = `f-${o.name}`;
  const options = o.options.map((opt) => html`<option value="${opt.value}"${attrs({ selected: opt.value === o.value })}>${opt.label}</option>`);
  const control = html`<select id="${id}" name="${o.name}"${described(id, o.error, o.hint)}>${options}</select>`;
  return html`<div class="${fieldClass(o.error)}"><label for="${id}">${o.label}</label>${control}${fieldExtras(id, o.error, o.hint)}</div>`;
}

export function checkbox(o: {
  name: string;
  label: string;
  checked: boolean;
  value?: string;
  id?: string;
  hint?: string;
  disabled?: boolean;
  describedBy?: string;
}): Html {
  const id = o.id ?? `f-${o.name}`;
  const state = attrs({ checked: o.checked, "aria-describedby": o.hint ? `${id}-hint` : o.describedBy, disabled: o.disabled });
  const hint = o.hint ? html`<span class="hint" id="${id}-hint">${o.hint}</span>` : "";
  const input = html`<input type="checkbox" id="${id}" name="${o.name}" value="${o.value ?? "on"}"${state}>`;
  return html`<div class="check">${input}<label for="${id}">${o.label}</label>${hint}</div>`;
}

/**
 * A form field holding JSON (a schema, a settings object): parsed with the request bodies' bounds
 * (src/http/json.ts: depth, control characters, duplicate keys), never plain JSON.parse, and
 * answered as a message to show next to the field.
 */
export function jsonField(text: string): { value: unknown } | { error: string } {
  try {
    return { value: parseJsonBounded(text) };
  } catch (error) {
    if (error instanceof JsonInputError) return { error: error.kind === "syntax" ? "This is not valid JSON." : error.message };
    throw error;
  }
}

/** The form-level error summary shown above a form that failed validation. */
export function errorSummary(errors: FieldErrors): Html {
  const count = Object.keys(errors).length;
  if (count === 0) return html``;
  const heading = count === 1 ? "One field needs attention." : `${count} fields need attention.`;
  const links = Object.entries(errors).map(([name, message]) => html`<li><a href="#f-${name}">${message}</a></li>`);
  return html`<div class="error" role="alert"><p>${heading}</p><ul>${links}</ul></div>`;
}

/** A field's own error line, for a group of controls (a fieldset) rather than one input. */
export function groupError(id: string, error: string | undefined): Html {
  return error ? html`<p class="field-error" id="${id}-error">${error}</p>` : html``;
}

/**
 * A submit button. `busy` is the label shown while a long action runs (connect, refresh, import):
 * /assets/dashboard.js disables the button and swaps the label on submit; without the script the
 * browser's own loading indicator is the progress.
 */
export function submit(label: string, options: { busy?: string; kind?: "primary" | "secondary" | "danger"; name?: string; value?: string } = {}): Html {
  const kind = options.kind && options.kind !== "primary" ? options.kind : null;
  const value = options.name ? (options.value ?? "") : null;
  return html`<button type="submit"${attrs({ class: kind, "data-busy": options.busy, name: options.name, value })}>${label}</button>`;
}

/**
 * A one-button form posting to `action` (activate, revoke, delete). `confirm` is asked by the script.
 * It always sends one field: an empty urlencoded body does not parse (src/http/body.ts).
 */
export function actionButton(
  action: string,
  label: string,
  options: { kind?: "secondary" | "danger"; busy?: string; confirm?: string; hidden?: Record<string, string> } = {},
): Html {
  const hidden = Object.entries(options.hidden ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  const button = submit(label, { kind: options.kind ?? "secondary", busy: options.busy });
  const confirm = attrs({ "data-confirm": options.confirm });
  return html`<form method="post" action="${action}" class="inline"${confirm}><input type="hidden" name="go" value="1">${hidden}${button}</form>`;
}
