// Server-rendered pages share one layout, one stylesheet (/assets/app.css, no external assets)
// and one strict Content-Security-Policy: no scripts, styles only from us, forms post only to us.
import { APP_CSS } from "./styles.ts";

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Tagged template that escapes every interpolated value unless it is already `Html`. */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    const rendered = Array.isArray(v) ? v.map((x) => (x instanceof Html ? x.value : escapeHtml(String(x)))).join("") : v instanceof Html ? v.value : v === undefined || v === null || v === false ? "" : escapeHtml(String(v));
    out += rendered + strings[i + 1]!;
  });
  return new Html(out);
}

export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function page(title: string, body: Html, options: { status?: number; headers?: Record<string, string>; csp?: string } = {}): Response {
  const doc = html`<!doctype html>
<html lang="en">
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
