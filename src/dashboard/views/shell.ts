// The layout every dashboard page shares: skip link, header with the org and the member, the org
// switcher, the nav filtered by role (with the inbox's queues), the flash message, the content; and
// the bare page for someone without an org context. ../shell.ts wraps these in the response.
import { attrs, type Html, html } from "../../html/html.ts";
import { NAV, reaches } from "../kit/nav.ts";
import type { Role } from "../../auth/roles.ts";
import type { Principal } from "../../auth/sessions.ts";

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

export interface ShellProps {
  viewer: Viewer;
  title: string;
  body: Html;
  /** The NAV key of the current section (aria-current). */
  active?: string;
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
  const items = queues.map(
    (q) => html`<li><a href="${q.href}" data-queue="${q.key}">${q.label} <span class="badge" data-count="${q.key}">${String(q.count)}</span></a></li>`,
  );
  return html`<ul class="queues" id="nav-queues" data-org="${orgId}" aria-label="Ticket queues">${items}</ul>`;
}

function head(title: string): Html {
  return html`<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · svc-agents</title>
<link rel="stylesheet" href="/assets/dashboard.css">
<link rel="icon" href="data:,">
<script src="/assets/dashboard.js" defer></script>`;
}

/** The org switcher for a member of several orgs, else the org's name. */
function orgSwitch(viewer: Viewer): Html {
  if (viewer.principal.memberships.length <= 1) return html`<span class="org">${viewer.orgName}</span>`;
  const options = viewer.principal.memberships.map(
    (m) => html`<option value="${m.orgId}"${attrs({ selected: m.orgId === viewer.orgId })}>${m.orgName}</option>`,
  );
  const label = html`<label for="org-switch" class="sr-only">Organisation</label>`;
  const button = html`<button type="submit" class="secondary small">Switch</button>`;
  return html`<form method="post" action="/dashboard/org" class="orgswitch">${label}<select id="org-switch" name="org_id">${options}</select>${button}</form>`;
}

function navList(viewer: Viewer, active: string | undefined): Html {
  const items = NAV.filter((item) => reaches(viewer, item)).map((item) => {
    const current = attrs({ "aria-current": item.key === active ? "page" : null });
    const queues = item.key === "inbox" && viewer.queues ? navQueues(viewer.orgId, viewer.queues) : "";
    return html`<li><a href="${item.href}"${current}>${item.label}</a>${queues}</li>`;
  });
  return html`<nav aria-label="Dashboard"><ul>${items}</ul></nav>`;
}

function flash(viewer: Viewer): Html | "" {
  if (!viewer.flash) return "";
  return html`<p class="flash ${viewer.flash.kind}" role="${viewer.flash.kind === "error" ? "alert" : "status"}">${viewer.flash.text}</p>`;
}

/** A dashboard page: skip link, header (org, member, org switcher, sign out), role-filtered nav, flash, content. */
export function ShellDocument(p: ShellProps): Html {
  return html`<!doctype html>
<html lang="en">
<head>
${head(p.title)}
</head>
<body class="dash">
<a class="skip" href="#content">Skip to content</a>
<header class="topbar">
<a class="brand" href="/dashboard">svc-agents</a>
${orgSwitch(p.viewer)}
<a class="small" href="/api/docs">API reference</a>
<a class="who" href="/dashboard/account" title="Your account">${p.viewer.principal.member.email}</a>
<form method="post" action="/signout"><button type="submit" class="secondary small">Sign out</button></form>
</header>
<div class="frame">
${navList(p.viewer, p.active)}
<main id="content" tabindex="-1">
${flash(p.viewer)}
${p.body}
</main>
</div>
</body>
</html>
`;
}

export interface ErrorDocumentProps {
  title: string;
  message: string;
}

/** A page for someone without an org context (no membership, or before the context exists). */
export function ErrorDocument(p: ErrorDocumentProps): Html {
  return html`<!doctype html>
<html lang="en">
<head>
${head(p.title)}
</head>
<body class="dash">
<main id="content" class="lone"><h1>${p.title}</h1><p class="error" role="alert">${p.message}</p><p><a href="/signin">Sign in</a></p></main>
</body>
</html>
`;
}
