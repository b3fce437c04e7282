// Dashboard: email settings (README "Email channel"), for members with inbox:view. The org's
// support alias (editable with org:manage, shown to the others) and the member's own choice of
// email when a customer writes. Through src/inbound/alias.ts and src/inbox/member-notices.ts, as
// /api/email/settings and /api/email/notifications do.
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { type Html, html } from "../html/html.ts";
import { NOTIFY_MODES, notifyMode, setNotifyMode } from "../inbox/member-notices.ts";
import { mailSettings, setSupportAlias } from "../inbound/alias.ts";
import { memberActor } from "../kit/actor.ts";
import { settingsNav } from "./settings-nav.ts";
import {
  type DashboardContext,
  errorSummary,
  field,
  type FieldErrors,
  formBody,
  formValues,
  type FormValues,
  redirect,
  select,
  shellPage,
  submit,
  submitForm,
  withMember,
} from "./kit/index.ts";

const PATH = "/dashboard/settings/email";
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
  const v = forms.values ?? {};
  const e = forms.errors ?? {};
  const alias: Html = ctx.can("org:manage")
    ? html`<form method="post" action="${PATH}/alias" novalidate>
${field({ name: "support_alias", label: "Support alias", value: v.support_alias ?? settings.support_alias ?? "", error: e.support_alias, maxLength: 64, hint: `Email to <alias>@${deps.config.inbound.domain ?? "INBOUND_EMAIL_DOMAIN"} opens a ticket. Lower-case letters, digits, dots, hyphens, underscores. Empty removes it.` })}
<div class="actions">${submit("Save alias", { busy: "Saving…" })}</div>
</form>`
    : html`<p>${settings.support_address ? html`Customers write to <strong>${settings.support_address}</strong>.` : "No support alias is set."}</p>`;
  const body = html`${errorSummary(e)}<h1>Email</h1>
${settingsNav(ctx, "email")}
<section class="panel" aria-labelledby="alias-h"><h2 id="alias-h">Support address</h2>
${settings.inbound_enabled ? "" : html`<p class="muted"><span class="badge warn">inbound mail off</span> The operator has not configured INBOUND_EMAIL_DOMAIN with a listener or a relay; replies are still emailed.</p>`}
${settings.support_address ? html`<p class="muted">Current address: <code>${settings.support_address}</code></p>` : ""}
${alias}
</section>
<section class="panel" aria-labelledby="notify-h"><h2 id="notify-h">Your notifications</h2>
<p class="muted">When a customer writes on a ticket assigned to you — or on an unassigned ticket, if you manage the inbox. At most one email per ticket every 10 minutes.</p>
<form method="post" action="${PATH}/notifications" novalidate>
${select({ name: "mode", label: "Email when a customer writes", value: v.mode ?? mode, error: e.mode, options: NOTIFY_MODES.map((m) => ({ value: m, label: MODE_LABELS[m] })) })}
<div class="actions">${submit("Save", { busy: "Saving…" })}</div>
</form>
</section>`;
  return shellPage(ctx, { title: "Email settings", active: "settings", body, status: forms.status });
}

export function emailSettingsPages(deps: Deps) {
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
