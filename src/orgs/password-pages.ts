// The sign-in page's "Forgot your password?" (/forgot-password) and the page a reset link opens
// (/reset-password/<token>), src/orgs/password-reset.ts. Plain forms under the sign-in page's
// policy: no script, every value escaped, cross-site posts refused. The token is in the path; the
// access log writes `/reset-password/[token]` (src/http/handler.ts), the page sends no Referer, and
// the answers are never cached.
import { Elysia, t } from "elysia";
import { crossSiteOrigin, expectedOriginMessage } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { html, page } from "../html/html.ts";
import { requestMeta } from "../http/request-meta.ts";
import { findReset, requestReset, resetWithToken } from "./password-reset.ts";
import { PASSWORD_MAX, PASSWORD_MIN } from "./service.ts";

const HEADERS = { "referrer-policy": "no-referrer", "cache-control": "no-store" };
/** The one answer to "forgot password", whether or not the address has an account. */
export const FORGOT_SENT = "If an account has this address, an email with a link to choose a new password is on its way. The link works for an hour.";

function forgotPage(
  deps: Pick<Deps, "config">,
  options: { email?: string; notice?: string; error?: string; status?: number; headers?: Record<string, string> } = {},
) {
  const smtp = Boolean(deps.config.smtpUrl);
  return page(
    "Forgot your password?",
    html`<h1>Forgot your password?</h1>
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ""}
${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ""}
${
  smtp
    ? html`<p>Enter the email address of your account; we send it a link to choose a new password.</p>
<form method="post" action="/forgot-password">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${options.email ?? ""}">
<div class="actions"><button type="submit">Email me a link</button></div>
</form>`
    : html`<p>This server sends no email. Ask the operator to run \
<code>svc-agents user reset-password --email you@example.com</code>\
: it prints a link that works for an hour.</p>`
}
<p><a href="/signin">Back to sign-in</a></p>`,
    { status: options.status, headers: { ...HEADERS, ...options.headers } },
  );
}

function resetPage(token: string, email: string, options: { error?: string; status?: number } = {}) {
  return page(
    "Choose a new password",
    html`<h1>Choose a new password</h1>
${options.error ? html`<p class="error" role="alert" id="password-error">${options.error}</p>` : ""}
<form method="post" action="/reset-password/${token}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" value="${email}" readonly>
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required autofocus \
minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}" \
aria-describedby="password-hint${options.error ? " password-error" : ""}"${options.error ? html` aria-invalid="true"` : ""}>
<p class="muted" id="password-hint">At least ${PASSWORD_MIN} characters. Every session of this account is signed out.</p>
<div class="actions"><button type="submit">Set password</button></div>
</form>`,
    { status: options.status, headers: HEADERS },
  );
}

function gonePage(error: AppError) {
  return page(
    "Link no longer valid",
    html`<h1>Link no longer valid</h1>
<p class="error" role="alert">${error.message}</p>
<p><a href="/forgot-password">Ask for a new link</a> · <a href="/signin">Sign in</a></p>`,
    { status: error.status, headers: HEADERS },
  );
}

const Token = t.Object({ token: t.String({ maxLength: 200 }) });

export function passwordPages(deps: Pick<Deps, "config" | "db" | "limiter" | "now" | "passwords">) {
  return new Elysia({ name: "password-pages" })
    .get("/forgot-password", () => forgotPage(deps))
    .post(
      "/forgot-password",
      async ({ body, request }) => {
        const from = crossSiteOrigin(deps.config.baseUrl, request);
        if (from !== null)
          return forgotPage(deps, { error: `This form was posted from another site. ${expectedOriginMessage(deps.config.baseUrl, from)}`, status: 403 });
        const email = (body.email ?? "").trim();
        if (!email || !email.includes("@")) return forgotPage(deps, { email, error: "Enter the email address of your account.", status: 400 });
        try {
          await requestReset(deps, { email, ip: requestMeta(request).ip, smtp: Boolean(deps.config.smtpUrl) });
        } catch (error) {
          if (!(error instanceof AppError) || error.status !== 429) throw error;
          return forgotPage(deps, { email, error: error.message, status: 429, headers: error.headers });
        }
        return forgotPage(deps, { notice: FORGOT_SENT });
      },
      { body: t.Object({ email: t.Optional(t.String({ maxLength: 320 })) }) },
    )
    .get(
      "/reset-password/:token",
      async ({ params }) => {
        const member = await findReset(deps, params.token);
        if (!member) return gonePage(new AppError(410, "reset_link_invalid", "This link is used, expired or replaced by a newer one."));
        return resetPage(params.token, member.email);
      },
      { params: Token },
    )
    .post(
      "/reset-password/:token",
      async ({ params, body, request }) => {
        const from = crossSiteOrigin(deps.config.baseUrl, request);
        if (from !== null)
          return gonePage(
            new AppError(403, "cross_site_request", `This form was posted from another site. ${expectedOriginMessage(deps.config.baseUrl, from)}`),
          );
        try {
          await resetWithToken(deps, params.token, body.password ?? "");
        } catch (error) {
          if (!(error instanceof AppError) || error.status >= 500) throw error;
          if (error.status === 410) return gonePage(error);
          const member = await findReset(deps, params.token);
          if (!member) return gonePage(new AppError(410, "reset_link_invalid", "This link is used, expired or replaced by a newer one."));
          return resetPage(params.token, member.email, { error: error.message, status: error.status });
        }
        return new Response(null, { status: 303, headers: { location: "/signin?reset=1", ...HEADERS } });
      },
      { params: Token, body: t.Object({ password: t.Optional(t.String({ maxLength: 1024 })), email: t.Optional(t.String({ maxLength: 320 })) }) },
    );
}
