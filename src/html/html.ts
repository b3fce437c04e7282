// The page kernel: every server-rendered page is built from `html` templates, which escape each
// interpolated value. `Html` (markup that is already safe) is made only in this folder: by the
// `html` tag itself, by `attrs` (attributes from names and values, boolean ones included), by
// `joinHtml`, and by the markdown renderer (markdown.ts). test/house/html.test.ts fails on any
// `new Html(` elsewhere. Pages share one layout, one stylesheet (/assets/app.css, no external
// assets) and one strict Content-Security-Policy: no scripts, styles only from us, forms post
// only to us.
import { APP_CSS } from "./styles.ts";

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Markup that is safe to insert as it is. Build it with `html`, `attrs` or `joinHtml`, never by hand. */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

function render(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(String(value));
}

/** Tagged template that escapes every interpolated value unless it is already `Html`; arrays are joined. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += (Array.isArray(v) ? v.map((x) => (x instanceof Html ? x.value : escapeHtml(String(x)))).join("") : render(v)) + strings[i + 1]!;
  });
  return new Html(out);
}

/** Fragments (already `Html`) joined with a separator (escaped). */
export function joinHtml(parts: readonly Html[], separator = ""): Html {
  return new Html(parts.map((p) => p.value).join(escapeHtml(separator)));
}

/** An attribute name we write ourselves: letters, digits and hyphens (never from input). */
const ATTRIBUTE_NAME = /^[a-z][a-z0-9-]*$/;

export type AttrValue = string | number | boolean | null | undefined;

/**
 * Attributes, each with a leading space: a string or number as name="escaped value", `true` as
 * the bare name (a boolean attribute: disabled, checked, selected, required, open, hidden),
 * `false`, null and undefined as nothing. A name that is not a plain attribute name throws:
 * names come from our code, values may come from anyone.
 */
export function attrs(record: Record<string, AttrValue>): Html {
  let out = "";
  for (const [name, value] of Object.entries(record)) {
    if (!ATTRIBUTE_NAME.test(name)) throw new Error(`not an attribute name: ${name}`);
    if (value === true) out += ` ${name}`;
    else if (value !== false && value !== null && value !== undefined) out += ` ${name}="${escapeHtml(String(value))}"`;
  }
  return new Html(out);
}

export const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function page(
  title: string,
  body: Html,
  options: { status?: number; headers?: Record<string, string>; csp?: string; lang?: string; dir?: "ltr" | "rtl" } = {},
): Response {
  const doc = html`<!doctype html>
<html lang="${options.lang ?? "en"}"${options.dir === "rtl" ? html` dir="rtl"` : ""}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · svc-agents</title>
<link rel="stylesheet" href="/assets/app.css">
<link rel="icon" href="data:,">
</head>
<body>
<main class="card">
${body}
</main>
</body>
</html>
`;
  return new Response(doc.value, {
    status: options.status ?? 200,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": options.csp ?? PAGE_CSP,
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "referrer-policy": "same-origin",
      "cache-control": "no-store",
      ...options.headers,
    },
  });
}

export function stylesheet(): Response {
  return new Response(APP_CSS, {
    headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" },
  });
}
