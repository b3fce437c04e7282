// Dashboard: the public help centre (src/helpcentre/), under org:manage: on or off, its slug, a
// custom domain with the TXT record that proves it and a button that checks it, the public tags
// (one a line, in the order their collections show), the footer; a link to the public site and a
// preview of it that works while it is off.
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { memberActor } from "../kit/actor.ts";
import { createMediaCache } from "../helpcentre/media.ts";
import { loadSite, serveHelp } from "../helpcentre/serve.ts";
import { HELP_LIMITS, type HelpCentreInput, helpCentreOfOrg, helpCentreView, saveHelpCentre, verifyDomain } from "../helpcentre/settings.ts";
import { titleSlug } from "../helpcentre/urls.ts";
import { orgProfile } from "../tenancy/orgs.ts";
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
import { HelpCentreSettingsPage } from "./views/settings-help.ts";

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
  const values = refused?.values ?? {};
  const org = await orgProfile(ctx.deps.db, ctx.orgId);
  const baseUrl = ctx.deps.config.baseUrl;
  const body = HelpCentreSettingsPage({
    viewer: ctx,
    path: HELP_SETTINGS_PATH,
    preview: PREVIEW,
    baseUrl,
    view,
    publicUrl: view ? (view.domain_verified ? `https://${view.custom_domain}/` : `${baseUrl}/help/${view.slug}/`) : null,
    slug: values.slug ?? view?.slug ?? titleSlug(org?.name ?? "help").slice(0, HELP_LIMITS.slug),
    limits: HELP_LIMITS,
    values,
    errors: refused?.errors ?? {},
  });
  return shellPage(ctx, { title: "Help centre", active: "settings", body, status: refused?.status });
}

export function helpCentrePages(deps: DashboardDeps & Pick<Deps, "mailDns" | "texts">) {
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
