// Dashboard: the member's own account (README "Accounts"), for any signed-in member whatever their
// roles: the display name and avatar shown with their replies (the widget, the email From), the
// password (the current one asked; every other session signed out), and their sessions with "sign
// out everywhere else". Through src/orgs/account.ts and src/auth/sessions.ts.
import { Elysia } from "elysia";
import { deleteOtherSessions, listMemberSessions } from "../auth/sessions.ts";
import type { Deps } from "../deps.ts";
import { requestMeta } from "../http/request-meta.ts";
import { ACCOUNT_LIMITS, changePassword, getProfile, MEMBER_LANGUAGES, updateProfile } from "../orgs/account.ts";
import { PASSWORD_MAX, PASSWORD_MIN } from "../orgs/service.ts";
import {
  type DashboardContext,
  type DashboardDeps,
  detailErrors,
  type FieldErrors,
  formBody,
  formValues,
  type FormValues,
  redirect,
  type Refused,
  shellPage,
  submitForm,
  withMember,
} from "./kit/index.ts";
import { Account } from "./views/account.ts";

async function accountPage(ctx: DashboardContext, refused?: Refused): Promise<Response> {
  const member = ctx.principal.member;
  const profile = await getProfile(ctx.deps, member.id);
  const sessions = await listMemberSessions(ctx.deps, member.id);
  const values: FormValues = refused?.values ?? {};
  const errors: FieldErrors = refused?.errors ?? {};
  const limits = { name: ACCOUNT_LIMITS.name, avatarUrl: ACCOUNT_LIMITS.avatarUrl, passwordMin: PASSWORD_MIN, passwordMax: PASSWORD_MAX };
  const body = Account({ profile, sessions, sessionId: ctx.principal.sessionId, values, errors, languages: MEMBER_LANGUAGES, limits });
  return shellPage(ctx, { title: "Your account", body, status: refused?.status });
}

const AccountForm = formBody({ text: 4096, items: 2 });

export function accountPages(deps: DashboardDeps & Pick<Deps, "passwords">) {
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
