// Dashboard: email settings (README "Email channel"), for members with inbox:view. The org's
// support alias (editable with org:manage, shown to the others) and the member's own choice of
// email when a customer writes. Through src/mail-in/alias.ts and src/inbox/member-notices.ts, as
// /api/email/settings and /api/email/notifications do.
import { Elysia } from "elysia";
import { NOTIFY_MODES, notifyMode, setNotifyMode } from "../inbox/member-notices.ts";
import { mailSettings, setSupportAlias } from "../mail-in/alias.ts";
import { memberActor } from "../kit/actor.ts";
import {
  type DashboardContext,
  type DashboardDeps,
  type FieldErrors,
  formBody,
  formValues,
  type FormValues,
  redirect,
  shellPage,
  submitForm,
  withMember,
} from "./kit/index.ts";
import { EMAIL_SETTINGS_PATH, EmailSettings } from "./views/email-settings.ts";

const PATH = EMAIL_SETTINGS_PATH;
const FormBody = formBody({ text: 200, items: 1 });
const MODE_LABELS: Record<(typeof NOTIFY_MODES)[number], string> = {
  full: "Email me the customer's message",
  notify_only: "Email me a link only, never the customer's text",
  off: "No email",
};

async function page(ctx: DashboardContext, forms: { values?: FormValues; errors?: FieldErrors; status?: number } = {}): Promise<Response> {
  const { deps, orgId } = ctx;
  const settings = await mailSettings(deps, orgId);
  const mode = await notifyMode(deps, orgId, ctx.principal.member.id);
  const body = EmailSettings({
    viewer: ctx,
    settings,
    domain: deps.config.inbound.domain ?? null,
    mode,
    modes: NOTIFY_MODES.map((m) => ({ value: m, label: MODE_LABELS[m] })),
    manage: ctx.can("org:manage"),
    values: forms.values ?? {},
    errors: forms.errors ?? {},
  });
  return shellPage(ctx, { title: "Email settings", active: "settings", body, status: forms.status });
}

export function emailSettingsPages(deps: DashboardDeps) {
  return new Elysia({ name: "dashboard-email-settings" })
    .get(PATH, ({ request }) => withMember(deps, request, "inbox:view", (ctx) => page(ctx)))
    .post(
      `${PATH}/alias`,
      ({ request, body }) =>
        withMember(deps, request, "org:manage", (ctx) =>
          submitForm({
            values: formValues(body),
            validate: (values) => {
              const raw = (values.support_alias ?? "").trim();
              return { input: raw === "" ? null : raw, errors: {} };
            },
            call: (alias) => setSupportAlias(deps, ctx.orgId, memberActor(ctx.principal.member.id), alias),
            done: () =>
              redirect(deps, `${PATH}#alias-h`, (formValues(body).support_alias ?? "").trim() === "" ? "Support alias removed." : "Support alias saved."),
            render: (refused) => page(ctx, refused),
            refused: (error) => (error.status === 400 || error.status === 409 ? { support_alias: error.message } : null),
          }),
        ),
      { body: FormBody },
    )
    .post(
      `${PATH}/notifications`,
      ({ request, body }) =>
        withMember(deps, request, "inbox:view", (ctx) =>
          submitForm({
            values: formValues(body),
            validate: (values) => {
              const mode = NOTIFY_MODES.find((m) => m === values.mode);
              const errors: FieldErrors = mode ? {} : { mode: `Choose one of: ${NOTIFY_MODES.join(", ")}.` };
              return { input: mode ?? NOTIFY_MODES[0], errors };
            },
            call: (mode) => setNotifyMode(deps, ctx.orgId, ctx.principal.member.id, mode),
            done: () => redirect(deps, `${PATH}#notify-h`, "Notification choice saved."),
            render: (refused) => page(ctx, refused),
            refused: () => null,
          }),
        ),
      { body: FormBody },
    );
}
