// The dashboard shell (issue #14): who is signed in and for which org, the layout with the nav
// filtered by role, flash messages after redirect-after-POST, form fields that show their error
// next to them, and pagination links. Pages are server-rendered through src/html/html.ts (every
// interpolated value escaped) and work without JavaScript; /assets/dashboard.js only enhances
// (progress on long actions, copy buttons, slug preview). Every page module builds on these.
import { t } from "elysia";
import { AppError } from "../errors.ts";
import type { Deps } from "../deps.ts";
import { authenticate } from "../auth/guard.ts";
import { hasRole, type Role } from "../auth/roles.ts";
import { ORG_COOKIE, type Principal } from "../auth/sessions.ts";
import { JsonInputError, parseJsonBounded } from "../http/json.ts";
import { escapeHtml, Html, html } from "../html/html.ts";
import { cookieValue } from "../kit/cookies.ts";

/** Scripts only from us (the enhancement script), nothing inline; otherwise the sign-in page's policy. */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const FLASH_COOKIE = "svc_flash";

export interface DashboardContext {
  deps: Deps;
  request: Request;
  principal: Principal;
  orgId: string;
  orgName: string;
  roles: readonly string[];
  /** The flash message set by the previous redirect, if any (read once). */
  flash: Flash | null;
  can(role: Role): boolean;
}

export interface Flash {
  kind: "ok" | "error";
  text: string;
}

function readFlash(request: Request): Flash | null {
  const raw = cookieValue(request, FLASH_COOKIE);
  if (!raw) return null;
  const kind = raw.startsWith("error:") ? "error" : raw.startsWith("ok:") ? "ok" : null;
  if (!kind) return null;
  return { kind, text: raw.slice(kind.length + 1).slice(0, 300) };
}

function flashCookie(deps: Deps, flash: Flash | null): string {
  const secure = deps.config.baseUrl.startsWith("https:") ? "; Secure" : "";
  const value = flash ? encodeURIComponent(`${flash.kind}:${flash.text.slice(0, 300)}`) : "";
  return `${FLASH_COOKIE}=${value}; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=${flash ? 60 : 0}${secure}`;
}

/**
 * The org a dashboard page acts on: the one chosen with the org switcher (a cookie naming one of
 * the member's orgs), else the first. A cookie naming an org the member left is ignored.
 */
function chooseOrg(principal: Principal, request: Request) {
  const wanted = cookieValue(request, ORG_COOKIE);
  return principal.memberships.find((m) => m.orgId === wanted) ?? principal.memberships[0];
}

/** A page answer short-circuiting a handler: a redirect to sign in, a 403 or 404 page. */
export class PageExit extends Error {
  constructor(readonly response: Response) {
    super("page exit");
  }
}

async function contextFor(deps: Deps, request: Request, role: Role | null): Promise<DashboardContext> {
  let principal: Principal;
  try {
    principal = await authenticate(deps, request);
  } catch (error) {
    if (error instanceof AppError && error.status === 401) {
      const url = new URL(request.url);
      const back = request.method === "GET" ? url.pathname + url.search : "/dashboard";
      throw new PageExit(new Response(null, { status: 303, headers: { location: `/signin?return_to=${encodeURIComponent(back)}`, "cache-control": "no-store" } }));
    }
    throw error;
  }
  const membership = chooseOrg(principal, request);
  if (!membership) throw new PageExit(errorPage(403, "No organisation", "You are not a member of any organisation."));
  const roles = membership.roles;
  const ctx: DashboardContext = {
    deps,
    request,
    principal,
    orgId: membership.orgId,
    orgName: membership.orgName,
    roles,
    flash: readFlash(request),
    can: (r) => hasRole(roles, r),
  };
  if (role && !ctx.can(role)) throw new PageExit(shellPage(ctx, { title: "Not allowed", status: 403, body: html`<h1>Not allowed</h1><p>This page needs the <code>${role}</code> role. Ask an admin of ${ctx.orgName} to grant it.</p>` }));
  return ctx;
}

/**
 * Runs a dashboard handler for a member holding `role` (null: any member). Not signed in → the
 * sign-in page with a way back; lacking the role → 403 page; an AppError thrown by a service → a
 * page saying so with its status (404 for another org's object: the tenant boundary answers as if
 * it did not exist). Cookie-authenticated POSTs must be same-origin (src/auth/guard.ts).
 */
export async function withMember(deps: Deps, request: Request, role: Role | null, run: (ctx: DashboardContext) => Promise<Response> | Response): Promise<Response> {
  let ctx: DashboardContext | undefined;
  try {
    ctx = await contextFor(deps, request, role);
    const response = await run(ctx);
    // The flash was shown on this page: clear it (unless this answer sets a new one).
    if (ctx.flash && !response.headers.has("set-cookie")) response.headers.append("set-cookie", flashCookie(deps, null));
    return response;
  } catch (error) {
    if (error instanceof PageExit) return error.response;
    if (error instanceof AppError && error.status < 500) {
      const title = error.status === 404 ? "Not found" : error.status === 403 ? "Not allowed" : "Could not do that";
      const body = html`<h1>${title}</h1><p role="alert" class="error">${error.message}</p><p><a href="/dashboard">Back to the dashboard</a></p>`;
      return ctx ? shellPage(ctx, { title, status: error.status, body, headers: error.headers }) : errorPage(error.status, title, error.message);
    }
    throw error;
  }
}

/** Redirect-after-POST (303) carrying a flash message to the next page. */
export function redirect(deps: Deps, location: string, flash?: Flash | string): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  if (flash) headers.append("set-cookie", flashCookie(deps, typeof flash === "string" ? { kind: "ok", text: flash } : flash));
  return new Response(null, { status: 303, headers });
}

export interface NavItem {
  href: string;
  label: string;
  /** The role the page needs; a list: any one of them (the page shows each member what their roles reach). */
  role: Role | readonly Role[];
  key: string;
}

/** Whether the member may open a nav item's page. */
export function reaches(ctx: Pick<DashboardContext, "can">, item: NavItem): boolean {
  return typeof item.role === "string" ? ctx.can(item.role) : item.role.some((r) => ctx.can(r));
}

/** The nav: a page the member may not use is not linked (and answers 403 if opened anyway). */
export const NAV: NavItem[] = [
  { key: "home", href: "/dashboard", label: "Overview", role: "agents:view" },
  { key: "agents", href: "/dashboard/agents", label: "Agents", role: "agents:view" },
  { key: "knowledge", href: "/dashboard/knowledge", label: "Knowledge base", role: "knowledge:view" },
  { key: "inbox", href: "/dashboard/inbox", label: "Inbox", role: "inbox:view" },
  { key: "campaigns", href: "/dashboard/campaigns", label: "Campaigns", role: "automation:view" },
  { key: "connectors", href: "/dashboard/connectors", label: "Connectors", role: "integrations:view" },
  { key: "custom-actions", href: "/dashboard/custom-actions", label: "Custom actions", role: "integrations:view" },
  { key: "settings", href: "/dashboard/settings", label: "Settings", role: ["org:manage", "members:manage"] },
  { key: "webhooks", href: "/dashboard/webhooks", label: "Webhooks", role: "org:manage" },
];

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

function head(title: string): Html {
  return html`<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · svc-agents</title>
<link rel="stylesheet" href="/assets/dashboard.css">
<link rel="icon" href="data:,">
<script src="/assets/dashboard.js" defer></script>`;
}

/** A dashboard page: skip link, header (org, member, org switcher, sign out), role-filtered nav, flash, content. */
export function shellPage(ctx: DashboardContext, options: ShellOptions): Response {
  const nav = NAV.filter((item) => reaches(ctx, item));
  const others = ctx.principal.memberships.length > 1;
  const doc = html`<!doctype html>
<html lang="en">
<head>
${head(options.title)}
</head>
<body class="dash">
<a class="skip" href="#content">Skip to content</a>
<header class="topbar">
<a class="brand" href="/dashboard">svc-agents</a>
${others
  ? html`<form method="post" action="/dashboard/org" class="orgswitch"><label for="org-switch" class="sr-only">Organisation</label><select id="org-switch" name="org_id">${ctx.principal.memberships.map((m) => html`<option value="${m.orgId}"${m.orgId === ctx.orgId ? new Html(" selected") : ""}>${m.orgName}</option>`)}</select><button type="submit" class="secondary small">Switch</button></form>`
  : html`<span class="org">${ctx.orgName}</span>`}
<span class="who">${ctx.principal.member.email}</span>
<form method="post" action="/signout"><button type="submit" class="secondary small">Sign out</button></form>
</header>
<div class="frame">
<nav aria-label="Dashboard"><ul>${nav.map((item) => html`<li><a href="${item.href}"${item.key === options.active ? new Html(' aria-current="page"') : ""}>${item.label}</a></li>`)}</ul></nav>
<main id="content" tabindex="-1">
${ctx.flash ? html`<p class="flash ${ctx.flash.kind}" role="${ctx.flash.kind === "error" ? "alert" : "status"}">${ctx.flash.text}</p>` : ""}
${options.body}
</main>
</div>
</body>
</html>
`;
  return documentResponse(doc, options.status ?? 200, options.headers);
}

/** A page for someone without an org context (no membership, or before the context exists). */
export function errorPage(status: number, title: string, message: string): Response {
  const doc = html`<!doctype html>
<html lang="en">
<head>
${head(title)}
</head>
<body class="dash">
<main id="content" class="lone"><h1>${title}</h1><p class="error" role="alert">${message}</p><p><a href="/signin">Sign in</a></p></main>
</body>
</html>
`;
  return documentResponse(doc, status);
}

// ---- Forms ---------------------------------------------------------------------------------

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

function describedBy(name: string, error: string | undefined, hint: string | undefined): Html {
  const ids = [error ? `${name}-error` : "", hint ? `${name}-hint` : ""].filter(Boolean).join(" ");
  return ids ? new Html(` aria-describedby="${escapeHtml(ids)}"`) : new Html("");
}

function fieldExtras(name: string, error: string | undefined, hint: string | undefined): Html {
  return html`${hint ? html`<p class="hint" id="${name}-hint">${hint}</p>` : ""}${error ? html`<p class="field-error" id="${name}-error">${error}</p>` : ""}`;
}

export interface FieldOptions {
  name: string;
  label: string;
  value?: string | null;
  error?: string;
  hint?: string;
  type?: "text" | "email" | "url" | "password" | "number" | "search" | "color";
  required?: boolean;
  maxLength?: number;
  placeholder?: string;
  /** Extra attributes, already safe (e.g. data-slug-source). */
  attrs?: Html;
}

/** A labelled input with its hint and its error (aria-invalid, aria-describedby). */
export function field(o: FieldOptions): Html {
  const invalid = o.error ? new Html(' aria-invalid="true"') : "";
  return html`<div class="field${o.error ? " has-error" : ""}"><label for="f-${o.name}">${o.label}</label><input id="f-${o.name}" name="${o.name}" type="${o.type ?? "text"}" value="${o.value ?? ""}"${o.required ? new Html(" required") : ""}${o.maxLength ? new Html(` maxlength="${o.maxLength}"`) : ""}${o.placeholder ? html` placeholder="${o.placeholder}"` : ""}${invalid}${describedBy(`f-${o.name}`, o.error, o.hint)}${o.attrs ?? ""}>${fieldExtras(`f-${o.name}`, o.error, o.hint)}</div>`;
}

export function textarea(o: Omit<FieldOptions, "type"> & { rows?: number }): Html {
  const invalid = o.error ? new Html(' aria-invalid="true"') : "";
  return html`<div class="field${o.error ? " has-error" : ""}"><label for="f-${o.name}">${o.label}</label><textarea id="f-${o.name}" name="${o.name}" rows="${o.rows ?? 6}"${o.required ? new Html(" required") : ""}${o.maxLength ? new Html(` maxlength="${o.maxLength}"`) : ""}${invalid}${describedBy(`f-${o.name}`, o.error, o.hint)}${o.attrs ?? ""}>${o.value ?? ""}</textarea>${fieldExtras(`f-${o.name}`, o.error, o.hint)}</div>`;
}

export function select(o: Omit<FieldOptions, "type"> & { options: { value: string; label: string }[] }): Html {
  const invalid = o.error ? new Html(' aria-invalid="true"') : "";
  return html`<div class="field${o.error ? " has-error" : ""}"><label for="f-${o.name}">${o.label}</label><select id="f-${o.name}" name="${o.name}"${invalid}${describedBy(`f-${o.name}`, o.error, o.hint)}>${o.options.map((opt) => html`<option value="${opt.value}"${opt.value === o.value ? new Html(" selected") : ""}>${opt.label}</option>`)}</select>${fieldExtras(`f-${o.name}`, o.error, o.hint)}</div>`;
}

export function checkbox(o: { name: string; label: string; checked: boolean; value?: string; id?: string; hint?: string }): Html {
  const id = o.id ?? `f-${o.name}`;
  return html`<div class="check"><input type="checkbox" id="${id}" name="${o.name}" value="${o.value ?? "on"}"${o.checked ? new Html(" checked") : ""}${o.hint ? new Html(` aria-describedby="${escapeHtml(id)}-hint"`) : ""}><label for="${id}">${o.label}</label>${o.hint ? html`<span class="hint" id="${id}-hint">${o.hint}</span>` : ""}</div>`;
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
  return html`<div class="error" role="alert"><p>${count === 1 ? "One field needs attention." : `${count} fields need attention.`}</p><ul>${Object.entries(errors).map(([name, message]) => html`<li><a href="#f-${name}">${message}</a></li>`)}</ul></div>`;
}

/**
 * A submit button. `busy` is the label shown while a long action runs (connect, refresh, import):
 * /assets/dashboard.js disables the button and swaps the label on submit; without the script the
 * browser's own loading indicator is the progress.
 */
export function submit(label: string, options: { busy?: string; kind?: "primary" | "secondary" | "danger"; name?: string; value?: string } = {}): Html {
  const cls = options.kind && options.kind !== "primary" ? ` class="${options.kind}"` : "";
  return html`<button type="submit"${new Html(cls)}${options.busy ? html` data-busy="${options.busy}"` : ""}${options.name ? html` name="${options.name}" value="${options.value ?? ""}"` : ""}>${label}</button>`;
}

/**
 * A one-button form posting to `action` (activate, revoke, delete). `confirm` is asked by the script.
 * It always sends one field: an empty urlencoded body does not parse (src/http/body.ts).
 */
export function actionButton(action: string, label: string, options: { kind?: "secondary" | "danger"; busy?: string; confirm?: string; hidden?: Record<string, string> } = {}): Html {
  return html`<form method="post" action="${action}" class="inline"${options.confirm ? html` data-confirm="${options.confirm}"` : ""}><input type="hidden" name="go" value="1">${Object.entries(options.hidden ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}${submit(label, { kind: options.kind ?? "secondary", busy: options.busy })}</form>`;
}

// ---- Pagination ----------------------------------------------------------------------------

export const PAGE_SIZE = 20;

/** The page number from `?page=` (1-based; anything else is page 1). */
export function pageNumber(raw: string | undefined): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 100_000 ? n : 1;
}

/** One page of an in-memory list, with whether more follow. */
export function pageOf<T>(items: readonly T[], page: number, size = PAGE_SIZE): { items: T[]; page: number; hasMore: boolean; total: number } {
  const start = (page - 1) * size;
  return { items: items.slice(start, start + size), page, hasMore: start + size < items.length, total: items.length };
}

/** Previous/next links keeping the other query parameters (search terms, filters). */
export function pager(path: string, query: Record<string, string | undefined>, page: number, hasMore: boolean, param = "page", label = "Pages"): Html {
  if (page <= 1 && !hasMore) return html``;
  const link = (n: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v && k !== param) params.set(k, v);
    if (n > 1) params.set(param, String(n));
    const qs = params.toString();
    return qs ? `${path}?${qs}` : path;
  };
  return html`<nav class="pager" aria-label="${label}">${page > 1 ? html`<a href="${link(page - 1)}" rel="prev">← Previous</a>` : ""}<span>Page ${page}</span>${hasMore ? html`<a href="${link(page + 1)}" rel="next">Next →</a>` : ""}</nav>`;
}

/** Formats a timestamp for a table cell (UTC, minutes). */
export function when(value: Date | string | null | undefined): string {
  if (!value) return "—";
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? "—" : `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

// ---- route schemas shared by the pages ----------------------------------------------------------

/** `/:id` of a page: any short string (the service answers 404 for what it does not know). */
export const IdParams = t.Object({ id: t.String({ maxLength: 64 }) });

/**
 * A form body: every field a bounded string, or a bounded list of them (repeated names: checkboxes,
 * multi-selects). Each page states its own bounds; the page reports what is wrong with each field.
 */
export function formBody(limits: { text: number; items: number; item?: number }) {
  return t.Record(t.String(), t.Union([t.String({ maxLength: limits.text }), t.Array(t.String({ maxLength: limits.item ?? limits.text }), { maxItems: limits.items })]));
}
