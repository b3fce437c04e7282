// Dashboard: the member's own account (README "Accounts"), for any signed-in member whatever their
// roles: the display name and avatar shown with their replies (the widget, the email From), the
// password (the current one asked; every other session signed out), and their sessions with "sign
// out everywhere else". Through src/orgs/account.ts and src/auth/sessions.ts.
import { Elysia } from "elysia";
import { deleteOtherSessions, listMemberSessions } from "../auth/sessions.ts";
import type { Deps } from "../deps.ts";
import { html } from "../html/html.ts";
import { requestMeta } from "../http/request-meta.ts";
import { ACCOUNT_LIMITS, changePassword, getProfile, MEMBER_LANGUAGES, updateProfile } from "../orgs/account.ts";
import { PASSWORD_MAX, PASSWORD_MIN } from "../orgs/service.ts";
import {
  actionButton,
  type DashboardContext,
  detailErrors,
  errorSummary,
  field,
  type FieldErrors,
  formBody,
  formValues,
  type FormValues,
  listTable,
  redirect,
  select,
  type Refused,
  shellPage,
  submit,
  submitForm,
  when,
  withMember,
} from "./kit/index.ts";

async function accountPage(ctx: DashboardContext, refused?: Refused): Promise<Response> {
  const member = ctx.principal.member;
  const profile = await getProfile(ctx.deps, member.id);
  const sessions = await listMemberSessions(ctx.deps, member.id);
  const v: FormValues = refused?.values ?? {};
  const e: FieldErrors = refused?.errors ?? {};
  const body = html`<h1>Your account</h1>
<p class="muted">${profile.email}</p>
<section class="panel" aria-labelledby="profile-h"><h2 id="profile-h">Profile</h2>
<form method="post" action="/dashboard/account/profile">
${field({ name: "name", label: "Display name", value: v.name ?? profile.name, error: e.name, maxLength: ACCOUNT_LIMITS.name, hint: "Signs your replies in the widget and in emails (“<name> at <organisation>”). Empty: “Support team”." })}
${field({ name: "avatar_url", label: "Avatar URL", type: "url", value: v.avatar_url ?? profile.avatar_url ?? "", error: e.avatar_url, maxLength: ACCOUNT_LIMITS.avatarUrl, placeholder: "https://", hint: "An https:// image shown beside your replies in the widget. Optional." })}
${select({ name: "language", label: "Language you read", value: v.language ?? profile.language ?? "en", error: e.language, options: MEMBER_LANGUAGES.map((code) => ({ value: code, label: languageLabel(code) })), hint: "Customer messages in another language are shown translated, and your replies can be sent in the customer's (when the organisation has a translator)." })}
<div class="actions">${submit("Save profile")}</div>
</form></section>
<section class="panel" aria-labelledby="password-h"><h2 id="password-h">Password</h2>
<form method="post" action="/dashboard/account/password">
<input type="text" name="username" autocomplete="username" value="${profile.email}" hidden>
${field({ name: "current_password", label: "Current password", type: "password", error: e.current_password, required: true, attrs: { autocomplete: "current-password" } })}
${field({ name: "new_password", label: "New password", type: "password", error: e.new_password, required: true, maxLength: PASSWORD_MAX, hint: `At least ${PASSWORD_MIN} characters. Every other session of yours is signed out.`, attrs: { autocomplete: "new-password", minlength: String(PASSWORD_MIN) } })}
<div class="actions">${submit("Change password")}</div>
</form></section>
<section class="panel" aria-labelledby="sessions-h"><h2 id="sessions-h">Sessions</h2>
<p class="muted">Where you are signed in: browsers and API clients holding a session token.</p>
${listTable({
  caption: "Your sessions",
  columns: ["Signed in", "Expires", "This one?"],
  rows: sessions,
  row: (s) => html`<tr><td>${when(s.createdAt)}</td><td>${when(s.expiresAt)}</td><td>${s.id === ctx.principal.sessionId ? "this session" : ""}</td></tr>`,
  empty: "No sessions.",
})}
${sessions.length > 1 ? actionButton("/dashboard/account/sessions/sign-out", "Sign out everywhere else", { kind: "danger", confirm: "Sign out every other session?" }) : html`<p class="muted">This is your only session.</p>`}
</section>`;
  return shellPage(ctx, { title: "Your account", body: html`${errorSummary(e)}${body}`, status: refused?.status });
}

const AccountForm = formBody({ text: 4096, items: 2 });

const languageNames = new Intl.DisplayNames(["en"], { type: "language" });
/** "es" → "Spanish (es)". */
const languageLabel = (code: string) => `${languageNames.of(code) ?? code} (${code})`;

export function accountPages(deps: Deps) {
  return new Elysia({ name: "dashboard-account" })
    .get("/dashboard/account", ({ request }) => withMember(deps, request, null, (ctx) => accountPage(ctx)))
    .post(
      "/dashboard/account/profile",
      ({ request, body }) =>
        withMember(deps, request, null, (ctx) =>
          submitForm({
            values: formValues(body),
            validate: (v) => ({
              input: {
                name: v.name ?? "",
                avatar_url: v.avatar_url ?? null,
                ...(v.language !== undefined ? { language: v.language === "en" ? null : v.language } : {}),
              },
              errors: {},
            }),
            call: (input) => updateProfile(deps, ctx.principal.member.id, input),
            done: () => redirect(deps, "/dashboard/account", "Profile saved."),
            render: (refused) => accountPage(ctx, refused),
            refused: (error) => (error.status === 400 ? detailErrors(error, ([first]) => first ?? "name", "name") : null),
          }),
        ),
      { body: AccountForm },
    )
    .post(
      "/dashboard/account/password",
      ({ request, body }) =>
        withMember(deps, request, null, (ctx) =>
          submitForm({
            // Passwords are never written back into the page.
            values: {},
            validate: () => {
              const v = formValues(body);
              const errors: FieldErrors = {};
              if (!v.current_password) errors.current_password = "Enter your current password.";
              if ((v.new_password ?? "").length < PASSWORD_MIN) errors.new_password = `Choose a password of ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`;
              return { input: { current: v.current_password ?? "", next: v.new_password ?? "" }, errors };
            },
            call: (input) =>
              changePassword(deps, { memberId: ctx.principal.member.id, sessionId: ctx.principal.sessionId, ...input, ip: requestMeta(request).ip }),
            done: (r) =>
              redirect(
                deps,
                "/dashboard/account",
                `Password changed. ${r.signed_out === 1 ? "1 other session was" : `${r.signed_out} other sessions were`} signed out.`,
              ),
            render: (refused) => accountPage(ctx, refused),
            refused: (error): FieldErrors | null =>
              error.status === 401 || error.status === 429
                ? { current_password: error.message }
                : error.status === 400
                  ? { new_password: error.message }
                  : null,
          }),
        ),
      { body: AccountForm },
    )
    .post(
      "/dashboard/account/sessions/sign-out",
      ({ request }) =>
        withMember(deps, request, null, async (ctx) => {
          const n = await deleteOtherSessions(deps, ctx.principal.member.id, ctx.principal.sessionId);
          return redirect(deps, "/dashboard/account", `Signed out everywhere else (${n} ${n === 1 ? "session" : "sessions"}).`);
        }),
      { body: AccountForm },
    );
}
