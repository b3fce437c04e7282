// Who is asking, for which org, with which roles: every dashboard handler runs inside withMember,
// which answers the cases a page never handles itself (not signed in → the sign-in page with a way
// back; lacking the role → a 403 page; an AppError a service throws → a page saying so). The flash
// message carried by a redirect-after-POST is read here and cleared once shown.
import type { Deps } from "../../deps.ts";
import type { ToolDeps } from "../../tools/types.ts";
import { AppError } from "../../errors.ts";
import { authenticate } from "../../auth/guard.ts";
import { hasRole, type Role } from "../../auth/roles.ts";
import { ORG_COOKIE, type Principal } from "../../auth/sessions.ts";
import { html } from "../../html/html.ts";
import { cookieValue } from "../../kit/cookies.ts";
import { ticketCounts } from "../../inbox/ticket-queries.ts";
import { errorPage, shellPage, type Viewer } from "../shell.ts";

export const FLASH_COOKIE = "svc_flash";

/**
 * The members of `Deps` the pages reach through `ctx.deps`, every page's together: withMember puts
 * them in each page's context, so a page module's plugin takes these and names with `Pick` only what
 * it uses beyond them. The pages run tools through the tool runtime (the `dashboard` channel), so
 * what a tool may use (`ToolDeps`) is part of it.
 */
export type DashboardDeps = ToolDeps & Pick<Deps, "accessTokens" | "evalRuns" | "fileReaders" | "limiter">;

export interface DashboardContext extends Viewer {
  deps: DashboardDeps;
  request: Request;
  roles: readonly string[];
  /** The flash message set by the previous redirect, if any (read once). */
  flash: Flash | null;
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

function flashCookie(deps: Pick<Deps, "config">, flash: Flash | null): string {
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

async function contextFor(deps: DashboardDeps, request: Request, role: Role | null): Promise<DashboardContext> {
  let principal: Principal;
  try {
    principal = await authenticate(deps, request);
  } catch (error) {
    if (error instanceof AppError && error.status === 401) {
      const url = new URL(request.url);
      const back = request.method === "GET" ? url.pathname + url.search : "/dashboard";
      throw new PageExit(
        new Response(null, { status: 303, headers: { location: `/signin?return_to=${encodeURIComponent(back)}`, "cache-control": "no-store" } }),
      );
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
  // The nav's queue counts: one indexed count for a page a person looks at, none for a form post.
  if (request.method === "GET" && ctx.can("inbox:view")) ctx.queues = await ticketCounts(deps, ctx.orgId, principal.member.id);
  if (role && !ctx.can(role))
    throw new PageExit(
      shellPage(ctx, {
        title: "Not allowed",
        status: 403,
        body: html`<h1>Not allowed</h1><p>This page needs the <code>${role}</code> role. Ask an admin of ${ctx.orgName} to grant it.</p>`,
      }),
    );
  return ctx;
}

/**
 * Runs a dashboard handler for a member holding `role` (null: any member). Not signed in → the
 * sign-in page with a way back; lacking the role → 403 page; an AppError thrown by a service → a
 * page saying so with its status (404 for another org's object: the tenant boundary answers as if
 * it did not exist). Cookie-authenticated POSTs must be same-origin (src/auth/guard.ts).
 */
export async function withMember(
  deps: DashboardDeps,
  request: Request,
  role: Role | null,
  run: (ctx: DashboardContext) => Promise<Response> | Response,
): Promise<Response> {
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
export function redirect(deps: Pick<Deps, "config">, location: string, flash?: Flash | string): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  if (flash) headers.append("set-cookie", flashCookie(deps, typeof flash === "string" ? { kind: "ok", text: flash } : flash));
  return new Response(null, { status: 303, headers });
}
