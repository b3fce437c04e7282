// The dashboard's page shell: the layout every page shares (skip link, header with the org and the
// member, the org switcher, the nav filtered by role, the flash message, the content) and its
// response headers. Pages are server-rendered through src/html/html.ts (every interpolated value
// escaped) and work without JavaScript; /assets/dashboard.js (client/) only enhances. Who is asking
// is worked out in kit/context.ts; the shell only draws for them.
import type { Role } from "../auth/roles.ts";
import type { Principal } from "../auth/sessions.ts";
import { attrs, type Html, html } from "../html/html.ts";

/** Scripts only from us (the enhancement script), nothing inline; otherwise the sign-in page's policy. */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** What the shell needs to know of the member looking at a page. */
export interface Viewer {
  principal: Principal;
  orgId: string;
  orgName: string;
  flash: { kind: "ok" | "error"; text: string } | null;
  can(role: Role): boolean;
  /** The ticket queues' counts for the nav, when the member may open the inbox (read for GET pages only). */
  queues?: QueueCounts | null;
}

export interface QueueCounts {
  open: number;
  unassigned: number;
  mine: number;
}

/**
 * The inbox's queues under its nav link, each with how many tickets wait in it (open or pending;
 * of those unassigned; the member's own). client/nav-counts.ts keeps the numbers current from the
 * org's ticket events, on every page.
 */
function navQueues(orgId: string, counts: QueueCounts): Html {
  const queues = [
    { key: "open", href: "/dashboard/inbox?status=active", label: "Open", count: counts.open },
    { key: "unassigned", href: "/dashboard/inbox?status=active&assignee=none", label: "Unassigned", count: counts.unassigned },
    { key: "mine", href: "/dashboard/inbox?status=active&assignee=me", label: "Mine", count: counts.mine },
  ];
  return html`<ul class="queues" id="nav-queues" data-org="${orgId}" aria-label="Ticket queues">${queues.map((q) => html`<li><a href="${q.href}" data-queue="${q.key}">${q.label} <span class="badge" data-count="${q.key}">${String(q.count)}</span></a></li>`)}</ul>`;
}

export interface NavItem {
  href: string;
  label: string;
  /** The role the page needs; a list: any one of them (the page shows each member what their roles reach). */
  role: Role | readonly Role[];
  key: string;
}

/** Whether the member may open a nav item's page. */
export function reaches(ctx: Pick<Viewer, "can">, item: NavItem): boolean {
  return typeof item.role === "string" ? ctx.can(item.role) : item.role.some((r) => ctx.can(r));
}

/** The nav: a page the member may not use is not linked (and answers 403 if opened anyway). */
export const NAV: NavItem[] = [
  { key: "home", href: "/dashboard", label: "Overview", role: "agents:view" },
  { key: "agents", href: "/dashboard/agents", label: "Agents", role: "agents:view" },
  { key: "knowledge", href: "/dashboard/knowledge", label: "Knowledge base", role: "knowledge:view" },
  { key: "inbox", href: "/dashboard/inbox", label: "Inbox", role: "inbox:view" },
  { key: "reports", href: "/dashboard/reports", label: "Reports", role: "inbox:view" },
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
export function shellPage(ctx: Viewer, options: ShellOptions): Response {
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
${
  others
    ? html`<form method="post" action="/dashboard/org" class="orgswitch"><label for="org-switch" class="sr-only">Organisation</label><select id="org-switch" name="org_id">${ctx.principal.memberships.map((m) => html`<option value="${m.orgId}"${attrs({ selected: m.orgId === ctx.orgId })}>${m.orgName}</option>`)}</select><button type="submit" class="secondary small">Switch</button></form>`
    : html`<span class="org">${ctx.orgName}</span>`
}
<a class="small" href="/api/docs">API reference</a>
<a class="who" href="/dashboard/account" title="Your account">${ctx.principal.member.email}</a>
<form method="post" action="/signout"><button type="submit" class="secondary small">Sign out</button></form>
</header>
<div class="frame">
<nav aria-label="Dashboard"><ul>${nav.map((item) => html`<li><a href="${item.href}"${attrs({ "aria-current": item.key === options.active ? "page" : null })}>${item.label}</a>${item.key === "inbox" && ctx.queues ? navQueues(ctx.orgId, ctx.queues) : ""}</li>`)}</ul></nav>
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
