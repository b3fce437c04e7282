// The invitation page, /invite/<token> (docs/decisions.md "Members and invitations"): what the
// invitee opens from the link an admin gave them (src/orgs/invitations.ts; accepting:
// src/orgs/invitation-accept.ts). A plain server-rendered form under the sign-in
// page's policy (no script, every value escaped): a name and a new password when no account
// exists for the invited email, that account's password when one does. Accepting signs the person
// in and lands them on /dashboard in the org they joined. A link that does not work gets a page
// saying why: 404 unknown, 410 expired, withdrawn or already used.
//
// The token is in the path; the access log writes `/invite/[token]` (src/http/handler.ts), the
// page sends no Referer (no-referrer), and the answers are never cached.
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { requestMeta } from "../http/request-meta.ts";
import { acceptInvitation, findInvitation, invitationGone, type InvitationLookup } from "./invitation-accept.ts";
import { INVITATION_LIMITS } from "./invitations.ts";
import { PASSWORD_MAX, PASSWORD_MIN } from "./service.ts";
import { ORG_COOKIE } from "../auth/sessions.ts";
import { html, page } from "../html/html.ts";
import { crossSiteOrigin, expectedOriginMessage } from "../auth/guard.ts";
import { sessionCookie } from "../auth/routes.ts";
import { createSession } from "../auth/sessions.ts";

const HEADERS = { "referrer-policy": "no-referrer" };

type FieldErrors = Partial<Record<"name" | "password", string>>;

function fieldError(name: string, error: string | undefined) {
  return error ? html`<p class="error" id="${name}-error">${error}</p>` : "";
}

function describedBy(name: string, error: string | undefined, hint?: boolean) {
  const ids = [error ? `${name}-error` : "", hint ? `${name}-hint` : ""].filter(Boolean).join(" ");
  return ids ? html` aria-describedby="${ids}"` : "";
}

export function invitePage(
  token: string,
  inv: InvitationLookup,
  options: { name?: string; errors?: FieldErrors; alert?: string; status?: number; headers?: Record<string, string> } = {},
): Response {
  const e = options.errors ?? {};
  const invalid = (k: keyof FieldErrors) => (e[k] ? html` aria-invalid="true"` : "");
  const who = inv.inviterEmail ? html`<strong>${inv.inviterEmail}</strong> invited you` : html`You are invited`;
  const form = inv.accountExists
    ? html`<p>You already have an account. Sign in with its password to join.</p>
<form method="post" action="/invite/${token}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" value="${inv.email}" readonly>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" \
required autofocus${invalid("password")}${describedBy("password", e.password)}>
${fieldError("password", e.password)}
<div class="actions"><button type="submit">Sign in and join</button></div>
</form>`
    : html`<p>Create your account to join.</p>
<form method="post" action="/invite/${token}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" value="${inv.email}" readonly>
<label for="name">Your name</label>
<input id="name" name="name" type="text" autocomplete="name" required autofocus \
maxlength="${INVITATION_LIMITS.name}" value="${options.name ?? ""}"${invalid("name")}${describedBy("name", e.name)}>
${fieldError("name", e.name)}
<label for="password">Choose a password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required \
minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}"\
${invalid("password")}${describedBy("password", e.password, true)}>
<p class="muted" id="password-hint">At least ${PASSWORD_MIN} characters.</p>
${fieldError("password", e.password)}
<div class="actions"><button type="submit">Create account and join</button></div>
</form>`;
  return page(
    `Join ${inv.orgName}`,
    html`<h1>Join ${inv.orgName}</h1>
${options.alert ? html`<p class="error" role="alert">${options.alert}</p>` : ""}
<p>${who} to <strong>${inv.orgName}</strong> as <strong>${inv.email}</strong>.</p>
<p class="muted">Roles: ${inv.roles.join(", ")}</p>
${form}`,
    { status: options.status, headers: { ...HEADERS, ...options.headers } },
  );
}

export function inviteGonePage(error: AppError): Response {
  const title = error.status === 404 ? "Invitation not found" : "Invitation no longer valid";
  return page(
    title,
    html`<h1>${title}</h1>
<p class="error" role="alert">${error.message}</p>
<p><a href="/signin">Sign in</a></p>`,
    { status: error.status, headers: HEADERS },
  );
}

const Token = t.Object({ token: t.String({ maxLength: 200 }) });

export function inviteRoutes(deps: Pick<Deps, "config" | "db" | "limiter" | "now" | "passwords" | "tools">) {
  return new Elysia({ name: "invite" })
    .get(
      "/invite/:token",
      async ({ params }) => {
        const inv = await findInvitation(deps, params.token);
        if (!inv) return inviteGonePage(invitationGone("unknown"));
        if (inv.state !== "pending") return inviteGonePage(invitationGone(inv.state));
        return invitePage(params.token, inv);
      },
      { params: Token },
    )
    .post(
      "/invite/:token",
      async ({ params, body, request }) => {
        const token = params.token;
        // A form posted from another site (as /signin refuses it): it could sign someone into an
        // account of the attacker's choosing.
        const from = crossSiteOrigin(deps.config.baseUrl, request);
        if (from !== null)
          return inviteGonePage(
            new AppError(403, "cross_site_request", `This form was posted from another site. ${expectedOriginMessage(deps.config.baseUrl, from)}`),
          );
        const name = body.name ?? "";
        try {
          const joined = await acceptInvitation(deps, token, { name, password: body.password ?? "", ip: requestMeta(request).ip });
          const session = await createSession(deps, joined.memberId);
          const maxAge = Math.floor((session.expiresAt.getTime() - deps.now().getTime()) / 1000);
          const secure = deps.config.baseUrl.startsWith("https:") ? "; Secure" : "";
          const headers = new Headers({ location: "/dashboard", "cache-control": "no-store", ...HEADERS });
          headers.append("set-cookie", sessionCookie(deps, session.token, maxAge));
          // Land in the org just joined, even for a member of several.
          headers.append("set-cookie", `${ORG_COOKIE}=${joined.orgId}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000${secure}`);
          return new Response(null, { status: 303, headers });
        } catch (error) {
          if (!(error instanceof AppError) || error.status >= 500) throw error;
          if (error.status === 404 || error.status === 410) return inviteGonePage(error);
          const inv = await findInvitation(deps, token);
          if (!inv || inv.state !== "pending") return inviteGonePage(invitationGone(inv?.state ?? "unknown"));
          const errors: FieldErrors = {};
          for (const d of error.details ?? []) if (d.path === "/name" || d.path === "/password") errors[d.path.slice(1) as keyof FieldErrors] ??= d.message;
          // A wrong password (401) belongs next to the password field; a 429 or a 409 is said above the form.
          if (error.status === 401) errors.password = error.message;
          const alert = error.status === 400 ? "Check the fields below." : error.status === 401 ? undefined : error.message;
          return invitePage(token, inv, { name, errors, alert, status: error.status, headers: error.headers });
        }
      },
      {
        params: Token,
        body: t.Object({
          name: t.Optional(t.String({ maxLength: 1000 })),
          password: t.Optional(t.String({ maxLength: 1024 })),
          email: t.Optional(t.String({ maxLength: 320 })),
        }),
      },
    );
}
