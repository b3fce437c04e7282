// Who is calling a dashboard API, for which org, with which roles. Every dashboard route calls
// `requireMember` first; it is the only place those three questions are answered.
import { AppError } from "../errors.ts";
import type { Deps } from "../deps.ts";
import { bearerToken } from "../kit/bearer.ts";
import { hasRole, type Role } from "./roles.ts";
import { type Principal, resolveSession, SESSION_COOKIE } from "./sessions.ts";

export function sessionToken(request: Request): string | undefined {
  const auth = request.headers.get("authorization");
  if (auth) return bearerToken(auth) ?? undefined;
  const cookie = request.headers.get("cookie");
  if (!cookie) return undefined;
  for (const part of cookie.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE) return decodeURIComponent(value.join("="));
  }
  return undefined;
}

export async function authenticate(deps: Deps, request: Request): Promise<Principal> {
  const token = sessionToken(request);
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

export async function requireMember(deps: Deps, request: Request, role: Role) {
  const principal = await authenticate(deps, request);
  const membership = orgOf(principal, request);
  if (!hasRole(membership.roles, role)) throw AppError.forbidden(`This needs the ${role} role.`);
  return { principal, orgId: membership.orgId, roles: membership.roles };
}
