// The dashboard's page shell: every page's response (the layout drawn by views/shell.ts, and the
// headers: the policy below, no caching, no framing). Pages are server-rendered through
// src/html/html.ts (every interpolated value escaped) and work without JavaScript;
// /assets/dashboard.js (client/) only enhances. Who is asking is worked out in kit/context.ts; the
// shell only draws for them.
import type { Html } from "../html/html.ts";
import { ErrorDocument, ShellDocument, type Viewer } from "./views/shell.ts";

export type { QueueCounts, Viewer } from "./views/shell.ts";

export { NAV, type NavItem, reaches } from "./kit/nav.ts";

/** Scripts only from us (the enhancement script), nothing inline; otherwise the sign-in page's policy. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export interface ShellOptions {
  title: string;
  body: Html;
  /** The NAV key of the current section (aria-current). */
  active?: string;
  status?: number;
  headers?: Record<string, string>;
}

function documentResponse(doc: Html, status: number, headers: Record<string, string> = {}): Response {
  return new Response(doc.value, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": DASHBOARD_CSP,
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "referrer-policy": "same-origin",
      "cache-control": "no-store",
      ...headers,
    },
  });
}

/** A dashboard page: skip link, header (org, member, org switcher, sign out), role-filtered nav, flash, content. */
export function shellPage(ctx: Viewer, options: ShellOptions): Response {
  const doc = ShellDocument({ viewer: ctx, title: options.title, body: options.body, active: options.active });
  return documentResponse(doc, options.status ?? 200, options.headers);
}

/** A page for someone without an org context (no membership, or before the context exists). */
export function errorPage(status: number, title: string, message: string): Response {
  return documentResponse(ErrorDocument({ title, message }), status);
}
