// Rendering one step of a series for one customer: a subject and a markdown body with
// variables, turned into a plain-text and an HTML part.
//
// Variables: `{{name}}`, `{{first_name}}`, `{{email}}`, `{{user_id}}`, `{{company.name}}`,
// `{{traits.<key>}}`, `{{company.traits.<key>}}` (a key may be a dotted path, e.g.
// `{{traits.plan.tier}}`), each with an optional fallback for a missing or empty value:
// `{{name | "there"}}`. Anything else between `{{` and `}}` is refused when the campaign is saved,
// so a typo is a 400 rather than a blank in a customer's inbox (docs/decisions.md).
//
// In the HTML part every value is HTML-escaped and inserted after markdown rendering, so a
// customer's name can neither inject markup nor be read as markdown. The body itself is the org's
// own markdown (rendered with `marked`, raw HTML allowed, as in any email tool).
import { randomBytes } from "node:crypto";
import { marked } from "marked";
import { escapeHtml } from "../html/html.ts";

/** Where the per-send unsubscribe URL goes; replaced when the message is sent (the token exists only then). */
export const UNSUBSCRIBE_MARK = "%%UNSUBSCRIBE_URL%%";

const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]{0,127})\s*(?:\|\s*"([^"{}\r\n]{0,200})"\s*)?\}\}/g;
const BASE_NAMES = new Set(["name", "first_name", "email", "user_id", "company.name"]);
const TRAIT_PATH = /^(traits|company\.traits)\.[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,3}$/;

export interface TemplateCustomer {
  name: string;
  email: string | null;
  externalId: string | null;
  traits: Record<string, unknown>;
  company: { name: string; traits: Record<string, unknown> } | null;
}

/** A stand-in customer for previews when none is named. */
export const SAMPLE_CUSTOMER: TemplateCustomer = {
  name: "Alex Example",
  email: "alex@example.com",
  externalId: "sample-user",
  traits: {},
  company: { name: "Example Inc.", traits: {} },
};

/** Problems with a template's variables, as messages; empty when it is fine. */
export function templateProblems(template: string): string[] {
  const problems: string[] = [];
  for (const match of template.matchAll(VARIABLE)) {
    const name = match[1]!;
    if (!BASE_NAMES.has(name) && !TRAIT_PATH.test(name))
      problems.push(`unknown variable {{${name}}}: use name, first_name, email, user_id, company.name, traits.<key> or company.traits.<key>`);
  }
  if (template.replace(VARIABLE, "").includes("{{")) problems.push('a "{{" does not start a valid variable: write {{name}} or {{name | "fallback"}}');
  return problems;
}

function lookup(source: unknown, path: string[]): unknown {
  let value = source;
  for (const key of path) {
    if (value === null || typeof value !== "object" || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The text of a variable for this customer; objects, arrays, null and "" count as missing. */
export function variableValue(customer: TemplateCustomer, name: string): string | undefined {
  let value: unknown;
  if (name === "name") value = customer.name;
  else if (name === "first_name") value = customer.name.trim().split(/\s+/)[0];
  else if (name === "email") value = customer.email;
  else if (name === "user_id") value = customer.externalId;
  else if (name === "company.name") value = customer.company?.name;
  else if (name.startsWith("traits.")) value = lookup(customer.traits, name.slice("traits.".length).split("."));
  else if (name.startsWith("company.traits.")) value = lookup(customer.company?.traits, name.slice("company.traits.".length).split("."));
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return typeof value === "string" && value !== "" ? value : undefined;
}

function substitute(template: string, customer: TemplateCustomer, each: (value: string) => string): string {
  return template.replace(VARIABLE, (_all, name: string, fallback: string | undefined) => each(variableValue(customer, name) ?? fallback ?? ""));
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/**
 * Renders a step. The unsubscribe link is UNSUBSCRIBE_MARK in both parts; `withUnsubscribeUrl`
 * puts the real URL in at send time.
 */
export function renderStep(step: { subject: string; body: string }, customer: TemplateCustomer, campaignName: string): RenderedMail {
  // A subject is one header line: line breaks in values become spaces (nodemailer encodes the rest).
  const subject = substitute(step.subject, customer, (v) => v)
    .replace(/[\r\n\t]+/g, " ")
    .trim()
    .slice(0, 998);
  const text =
    `${substitute(step.body, customer, (v) => v).trim()}\n\n--\nYou receive this ` +
    `because you are enrolled in "${campaignName}".\nUnsubscribe: ${UNSUBSCRIBE_MARK}\n`;
  // Values go in after markdown, behind placeholders made of letters and digits only (nothing
  // markdown treats specially), then escaped: `<b>` in a name stays text.
  const nonce = randomBytes(6).toString("hex");
  const values: string[] = [];
  const marked_ = substitute(step.body, customer, (v) => `mv${nonce}x${values.push(v) - 1}e`);
  let body = marked.parse(marked_, { async: false, gfm: true }) as string;
  body = body.replace(new RegExp(`mv${nonce}x(\\d+)e`, "g"), (_m, i: string) => escapeHtml(values[Number(i)]!));
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body>
${body}
<hr>
<p style="font-size:12px;color:#666">You receive this because you are enrolled in &quot;${escapeHtml(campaignName)}&quot;. \
<a href="${UNSUBSCRIBE_MARK}">Unsubscribe</a></p>
</body></html>
`;
  return { subject, text, html };
}

/** The message with its real unsubscribe URL (escaped for the HTML part). */
export function withUnsubscribeUrl(mail: RenderedMail, url: string): RenderedMail {
  return { subject: mail.subject, text: mail.text.replaceAll(UNSUBSCRIBE_MARK, url), html: mail.html.replaceAll(UNSUBSCRIBE_MARK, escapeHtml(url)) };
}
