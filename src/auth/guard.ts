// Who is calling a dashboard API, for which org, with which roles. Every dashboard route calls
// `requireMember` first; it is the only place those three questions are answered.
import { AppError } from "../errors.ts";
import type { Deps } from "../deps.ts";
import { bearerToken } from "../kit/bearer.ts";
import { cookieValue } from "../kit/cookies.ts";
import { hasRole, type Role } from "./roles.ts";
import { type Principal, resolveSession, SESSION_COOKIE } from "./sessions.ts";

export function sessionToken(request: Request): string | undefined {
  const auth = request.headers.get("authorization");
  if (auth) return bearerToken(auth) ?? undefined;
  // An undecodable cookie is no session: signed out, not a failure (src/kit/cookies.ts).
  return cookieValue(request, SESSION_COOKIE);
}

/**
 * Where a cross-site request came from, or null when it is same-origin. Browsers say where a
 * request comes from in `Sec-Fetch-Site`, which we trust when present (a page may legitimately
 * send `Origin: null`, e.g. under a strict referrer policy); otherwise `Origin` must be BASE_URL's.
 * Clients that send neither (curl, tests, old browsers) are let through: they carry no victim's
 * cookies. Browsers send Sec-Fetch-* only to trustworthy origins (https, loopback), so a plain-http
 * LAN address is judged by its Origin.
 */
export function crossSiteOrigin(baseUrl: string, request: Request): string | null {
  const origin = request.headers.get("origin");
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) return site === "same-origin" || site === "none" ? null : (origin ?? `another site (Sec-Fetch-Site: ${site})`);
  return origin === null || origin === new URL(baseUrl).origin ? null : origin;
}

export function sameOriginPost(baseUrl: string, request: Request): boolean {
  return crossSiteOrigin(baseUrl, request) === null;
}

/** What to tell someone whose form or request came from the wrong origin: which one we expect. */
export function expectedOriginMessage(baseUrl: string, from: string): string {
  const expected = new URL(baseUrl).origin;
  return `This was sent from ${from.slice(0, 200)}, but this server expects ${expected} (its BASE_URL). Open ${expected}, or set BASE_URL to the address you use.`;
}

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The signed-in member. A session cookie is sent by the browser whoever made the page, so a
 * cookie-authenticated state-changing request (POST/PUT/PATCH/DELETE) must be same-origin, as the
 * sign-in form is (CSRF; SameSite=Lax does not cover same-site subdomains or older browsers).
 * Bearer tokens are never sent implicitly and are not checked.
 */
export async function authenticate(deps: Pick<Deps, "config" | "db" | "now">, request: Request): Promise<Principal> {
  const token = sessionToken(request);
  if (token && !request.headers.get("authorization") && STATE_CHANGING.has(request.method)) {
    const from = crossSiteOrigin(deps.config.baseUrl, request);
    if (from !== null)
      throw new AppError(
        403,
        "cross_site_request",
        `${expectedOriginMessage(deps.config.baseUrl, from)} Cookie-authenticated changes must come from this origin; other clients use a bearer token.`,
      );
  }
  const principal = token ? await resolveSession(deps, token) : null;
  if (!principal) throw AppError.unauthorized(token ? "The session is invalid or has expired." : "Sign in to continue.");
  return principal;
}

/**
 * The org a request acts on: the `X-Org-Id` header, or the member's only org. A member of several
 * orgs must name one. Naming an org the member does not belong to is a 403 (it never reveals
 * whether that org exists).
 */
export function orgOf(principal: Principal, request: Request) {
  const wanted = request.headers.get("x-org-id");
  if (wanted) {
    const membership = principal.memberships.find((m) => m.orgId === wanted);
    if (!membership) throw AppError.forbidden("You are not a member of that organisation.");
    return membership;
  }
  if (principal.memberships.length === 1) return principal.memberships[0]!;
  if (principal.memberships.length === 0) throw AppError.forbidden("You are not a member of any organisation.");
  throw AppError.badRequest("You belong to several organisations: name one with the X-Org-Id header.", [
    { path: "/headers/x-org-id", message: "required for members of several organisations" },
  ]);
}

export async function requireMember(deps: Pick<Deps, "config" | "db" | "now">, request: Request, role: Role) {
  const principal = await authenticate(deps, request);
  const membership = orgOf(principal, request);
  if (!hasRole(membership.roles, role)) throw AppError.forbidden(`This needs the ${role} role.`);
  return { principal, orgId: membership.orgId, roles: membership.roles };
}
