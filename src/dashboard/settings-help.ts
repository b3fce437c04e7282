// Dashboard: the public help centre (src/helpcentre/), under org:manage: on or off, its slug, a
// custom domain with the TXT record that proves it and a button that checks it, the public tags
// (one a line, in the order their collections show), the footer; a link to the public site and a
// preview of it that works while it is off.
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { html } from "../html/html.ts";
import { memberActor } from "../kit/actor.ts";
import { createMediaCache } from "../helpcentre/media.ts";
import { loadSite, serveHelp } from "../helpcentre/serve.ts";
import { HELP_LIMITS, type HelpCentreInput, helpCentreOfOrg, helpCentreView, saveHelpCentre, verifyDomain } from "../helpcentre/settings.ts";
import { titleSlug } from "../helpcentre/urls.ts";
import { orgProfile } from "../tenancy/orgs.ts";
import {
  actionButton,
  checkbox,
  type DashboardContext,
  detailErrors,
  errorSummary,
  field,
  type FieldErrors,
  formBody,
  formValues,
  type FormValues,
  redirect,
  type Refused,
  shellPage,
  submit,
  submitForm,
  textarea,
  withMember,
} from "./kit/index.ts";
import { settingsNav } from "./settings-nav.ts";

export const HELP_SETTINGS_PATH = "/dashboard/settings/help-centre";
const PREVIEW = `${HELP_SETTINGS_PATH}/preview`;
const FormBody = formBody({ text: 4000, items: 1 });

function parseForm(v: FormValues): { input: HelpCentreInput; errors: FieldErrors } {
  const collections = (v.collections ?? "")
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    input: { enabled: v.enabled === "on", slug: v.slug ?? "", custom_domain: v.custom_domain ?? null, collections, footer: v.footer ?? "" },
    errors: {},
  };
}

async function helpSettingsPage(ctx: DashboardContext, refused?: Refused): Promise<Response> {
  const row = await helpCentreOfOrg(ctx.deps, ctx.orgId);
  const view = row ? helpCentreView(row) : null;
  const v = refused?.values ?? {};
  const e = refused?.errors ?? {};
  const org = await orgProfile(ctx.deps.db, ctx.orgId);
  const slug = v.slug ?? view?.slug ?? titleSlug(org?.name ?? "help").slice(0, HELP_LIMITS.slug);
  const publicUrl = view ? (view.domain_verified ? `https://${view.custom_domain}/` : `${ctx.deps.config.baseUrl}/help/${view.slug}/`) : null;
  const domain = !view?.custom_domain
    ? ""
    : view.domain_verified
      ? html`<p><span class="badge ok">verified</span> ${view.custom_domain} serves the help centre.</p>`
      : html`<div class="notice"><p><span class="badge warn">not verified</span> Add this DNS record, point the name at this service, then check it. The domain is not served until then.</p>
<dl><dt>Name</dt><dd><code>${view.domain_record!.name}</code></dd><dt>Type</dt><dd>TXT</dd><dt>Value</dt><dd><code>${view.domain_record!.value}</code></dd></dl>
${actionButton(`${HELP_SETTINGS_PATH}/verify`, "Check the DNS record", { kind: "secondary" })}</div>`;
  const body = html`${errorSummary(e)}<h1>Settings</h1>
${settingsNav(ctx, "help-centre")}
<section class="panel" aria-labelledby="help-h"><h2 id="help-h">Help centre</h2>
<p class="muted">Your published articles carrying a public tag, on the web and in the widget. Articles tagged <code>internal</code> and drafts are never shown.</p>
${publicUrl && view?.enabled ? html`<p>Public at <a href="${publicUrl}">${publicUrl}</a>.</p>` : ""}
${view ? html`<p><a href="${PREVIEW}/">Preview the help centre</a></p>` : ""}
${domain}
<form method="post" action="${HELP_SETTINGS_PATH}" novalidate>
${checkbox({ name: "enabled", label: "Publish the help centre", checked: v.enabled !== undefined ? v.enabled === "on" : (view?.enabled ?? false) })}
${field({ name: "slug", label: "Address", value: slug, error: e.slug, maxLength: HELP_LIMITS.slug, hint: `The help centre is at ${ctx.deps.config.baseUrl}/help/<address>/.` })}
${field({ name: "custom_domain", label: "Custom domain (optional)", value: v.custom_domain ?? view?.custom_domain ?? "", error: e.custom_domain, maxLength: HELP_LIMITS.domain, placeholder: "help.example.com" })}
${textarea({ name: "collections", label: "Public tags", value: v.collections ?? (view?.collections ?? []).join("\n"), error: e.collections, rows: 5, hint: `One tag a line, at most ${HELP_LIMITS.collections}: each is a collection, shown in this order. An article is public when it carries one of them.` })}
${textarea({ name: "footer", label: "Footer", value: v.footer ?? view?.footer ?? "", error: e.footer, rows: 2, hint: `At most ${HELP_LIMITS.footer} characters.` })}
<div class="actions">${submit("Save help centre")}</div>
</form>
</section>`;
  return shellPage(ctx, { title: "Help centre", active: "settings", body, status: refused?.status });
}

export function helpCentrePages(deps: Deps) {
  const role = "org:manage" as const;
  const media = createMediaCache();
  const preview = (request: Request) =>
    withMember(deps, request, role, async (ctx) => {
      const row = await helpCentreOfOrg(deps, ctx.orgId);
      const site = row ? await loadSite(deps, row, false) : null;
      if (!site) throw AppError.notFound("Save the help centre's settings first.");
      const url = new URL(request.url);
      return serveHelp(
        deps,
        media,
        { ...site, prefix: PREVIEW },
        { method: "GET", rest: url.pathname.slice(PREVIEW.length), query: url.searchParams, request },
      );
    });
  return new Elysia({ name: "dashboard-help-centre" })
    .get(HELP_SETTINGS_PATH, ({ request }) => withMember(deps, request, role, (ctx) => helpSettingsPage(ctx)))
    .post(
      HELP_SETTINGS_PATH,
      ({ request, body }) =>
        withMember(deps, request, role, (ctx) =>
          submitForm({
            values: formValues(body),
            validate: parseForm,
            call: (input) => saveHelpCentre(deps, ctx.orgId, memberActor(ctx.principal.member.id), input),
            done: () => redirect(deps, HELP_SETTINGS_PATH, "Help centre saved."),
            render: (refused) => helpSettingsPage(ctx, refused),
            refused: (error) =>
              error.code === "slug_taken"
                ? { slug: error.message }
                : error.code === "domain_taken"
                  ? { custom_domain: error.message }
                  : error.status === 400
                    ? detailErrors(error, ([first]) => first ?? "slug", "slug")
                    : null,
          }),
        ),
      { body: FormBody },
    )
    .post(
      `${HELP_SETTINGS_PATH}/verify`,
      ({ request }) =>
        withMember(deps, request, role, async (ctx) => {
          const ok = await verifyDomain(deps, ctx.orgId, memberActor(ctx.principal.member.id));
          return redirect(deps, HELP_SETTINGS_PATH, ok ? "The domain is verified." : "The TXT record was not found yet. DNS changes can take a while.");
        }),
      { body: FormBody },
    )
    .get(PREVIEW, ({ request }) => preview(request))
    .get(`${PREVIEW}/*`, ({ request }) => preview(request));
}
