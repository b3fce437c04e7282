// Dashboard sign-in: the HTML form (/signin, /signout), the session API for programmatic clients
// (/api/auth/session), and /api/me.
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { requestMeta } from "../http/request-meta.ts";
import { authenticate, crossSiteOrigin, expectedOriginMessage, sessionToken } from "./guard.ts";
import { signInPage } from "./pages.ts";
import { createSession, deleteSession, resolveSession, SESSION_COOKIE } from "./sessions.ts";
import { checkPassword } from "./signin.ts";

/** Where sign-in lands when no return path is given: the dashboard, not the page linking to it. */
export const AFTER_SIGNIN = "/dashboard";

/**
 * Where to go after signing in: only a path on this origin. What is checked is what we redirect
 * to, after the normalisation a browser applies (dot segments, `%2e`), so `/.//host` cannot turn
 * into the protocol-relative `//host` (RFC 3986 section 4.2) after the check. Absolute URLs,
 * `//host`, backslashes, control characters, and percent-encoded slashes, backslashes or controls
 * in the path (no page of ours has them; a proxy that decodes them would see `//host`), or
 * nothing, fall back to the dashboard.
 */
export function safeReturnTo(raw: string | undefined, baseUrl: string): string {
  if (!raw || !raw.startsWith("/") || /[\\\x00-\x1f\x7f]/.test(raw)) return AFTER_SIGNIN;
  let url: URL;
  try {
    url = new URL(raw, baseUrl);
  } catch {
    return AFTER_SIGNIN;
  }
  const target = url.pathname + url.search + url.hash;
  if (url.origin !== new URL(baseUrl).origin || !/^\/(?![/\\])/.test(target) || /%(2f|5c|[01][0-9a-f]|7f)/i.test(url.pathname)) return AFTER_SIGNIN;
  return target;
}

/** The session cookie (also set when an invitation is accepted, src/orgs/invite-page.ts). */
export function sessionCookie(deps: Pick<Deps, "config">, token: string, maxAgeSeconds: number): string {
  const secure = deps.config.baseUrl.startsWith("https:") ? "; Secure" : "";
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/** A cross-site form post to /signin (login CSRF) is refused, naming the origin we expect. */
export { sameOriginPost } from "./guard.ts";

const Credentials = t.Object({
  email: t.String({ minLength: 1, maxLength: 320 }),
  password: t.String({ minLength: 1, maxLength: 1024 }),
});

export function authRoutes(deps: Pick<Deps, "config" | "db" | "limiter" | "now" | "passwords">) {
  return (
    new Elysia({ name: "auth" })
      .get(
        "/signin",
        ({ query }) =>
          signInPage({
            returnTo: safeReturnTo(query.return_to, deps.config.baseUrl),
            notice: query.reset === "1" ? "Your password is set. Sign in with it." : undefined,
          }),
        {
          query: t.Object({ return_to: t.Optional(t.String({ maxLength: 8192 })), reset: t.Optional(t.String({ maxLength: 8 })) }),
        },
      )
      .post(
        "/signin",
        async ({ body, request }) => {
          const returnTo = safeReturnTo(body.return_to, deps.config.baseUrl);
          const from = crossSiteOrigin(deps.config.baseUrl, request);
          if (from !== null)
            return signInPage({
              returnTo,
              error: `This sign-in form was posted from another site. ${expectedOriginMessage(deps.config.baseUrl, from)}`,
              status: 403,
            });
          if (!body.email || !body.password) return signInPage({ returnTo, email: body.email, error: "Enter your email and password.", status: 400 });
          try {
            const member = await checkPassword(deps, { email: body.email, password: body.password, ip: requestMeta(request).ip });
            const session = await createSession(deps, member.id);
            const maxAge = Math.floor((session.expiresAt.getTime() - deps.now().getTime()) / 1000);
            return new Response(null, {
              status: 303,
              headers: { location: returnTo, "set-cookie": sessionCookie(deps, session.token, maxAge), "cache-control": "no-store" },
            });
          } catch (error) {
            if (!(error instanceof AppError) || (error.status !== 401 && error.status !== 429)) throw error;
            return signInPage({ returnTo, email: body.email, error: error.message, status: error.status, headers: error.headers });
          }
        },
        {
          body: t.Object({
            email: t.Optional(t.String({ maxLength: 320 })),
            password: t.Optional(t.String({ maxLength: 1024 })),
            return_to: t.Optional(t.String({ maxLength: 8192 })),
          }),
        },
      )
      .post("/signout", async ({ request }) => {
        const from = crossSiteOrigin(deps.config.baseUrl, request);
        if (from !== null) throw new AppError(403, "cross_site_request", expectedOriginMessage(deps.config.baseUrl, from));
        const token = sessionToken(request);
        const principal = token ? await resolveSession(deps, token) : null;
        if (principal) await deleteSession(deps, principal.sessionId);
        return new Response(null, { status: 303, headers: { location: "/signin", "set-cookie": sessionCookie(deps, "", 0) } });
      })
      // `/` is the address the start banner prints: signed in, it is the dashboard; otherwise the sign-in.
      .get("/", async ({ request }) => {
        const token = sessionToken(request);
        const principal = token ? await resolveSession(deps, token) : null;
        return new Response(null, { status: 303, headers: { location: principal ? AFTER_SIGNIN : "/signin", "cache-control": "no-store" } });
      })
      .post(
        "/api/auth/session",
        async ({ body, request }) => {
          const member = await checkPassword(deps, { ...body, ip: requestMeta(request).ip });
          const session = await createSession(deps, member.id);
          return { token: session.token, expires_at: session.expiresAt.toISOString() };
        },
        {
          body: Credentials,
          response: {
            200: t.Object({ token: t.String({ description: "svc_…: send as Authorization: Bearer." }), expires_at: t.String({ format: "date-time" }) }),
          },
          detail: { summary: "Sign in with email and password: a dashboard session token for the Authorization header", tags: ["Sign-in"] },
        },
      )
      .delete(
        "/api/auth/session",
        async ({ request }) => {
          const principal = await authenticate(deps, request);
          await deleteSession(deps, principal.sessionId);
          return new Response(null, { status: 204 });
        },
        {
          response: { 204: t.Null({ description: "No content" }) },
          detail: { summary: "Sign out: the session token stops working", tags: ["Sign-in"], security: [{ dashboard: [] }] },
        },
      )
      .get(
        "/api/me",
        async ({ request }) => {
          const principal = await authenticate(deps, request);
          return {
            member: principal.member,
            orgs: principal.memberships.map((m) => ({ id: m.orgId, name: m.orgName, roles: m.roles })),
          };
        },
        {
          response: {
            200: t.Object({
              member: t.Object({ id: t.String(), email: t.String(), name: t.String() }),
              orgs: t.Array(t.Object({ id: t.String(), name: t.String(), roles: t.Array(t.String()) })),
            }),
          },
          detail: { summary: "The signed-in member and their orgs with roles", tags: ["Sign-in"], security: [{ dashboard: [] }] },
        },
      )
  );
}
