// The dashboard under /dashboard: the shell's own routes (overview, org switch) and each page
// module's plugin. Pages call the same service functions as the JSON APIs, never HTTP to
// ourselves. Each page module exports `xxxPages(deps)` (an Elysia plugin) and is mounted here.
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { setupStatus } from "../setup/status.ts";
import { accountPages } from "./account.ts";
import { activityPages } from "./activity.ts";
import { agentPages } from "./agents.ts";
import { evalPages } from "./eval.ts";
import { dashboardAssets } from "./assets.ts";
import { connectorPages } from "./connectors.ts";
import { customActionPages } from "./custom-actions.ts";
import { knowledgePages } from "./knowledge.ts";
import { knowledgeSourcePages } from "./knowledge-sources.ts";
import { settingsPages } from "./settings.ts";
import { businessHoursPages } from "./settings-hours.ts";
import { translationPages } from "./settings-translation.ts";
import { helpCentrePages } from "./settings-help.ts";
import { textsPages } from "./settings-texts.ts";
import { emailSettingsPages } from "./email-settings.ts";
import { conversationPages } from "./conversations.ts";
import { customerPages } from "./customers.ts";
import { campaignPages } from "./campaigns.ts";
import { inboxPages } from "./inbox.ts";
import { savedReplyPages } from "./inbox-saved-replies.ts";
import { webhookPages } from "./webhooks.ts";
import { reportPages } from "./reports.ts";
import { headlineCards } from "./views/report-headlines.ts";
import { headlines } from "../reports/report.ts";
import { describeRoles } from "../auth/roles.ts";
import { ORG_COOKIE } from "../auth/sessions.ts";
import { type DashboardDeps, redirect, shellPage, withMember } from "./kit/index.ts";
import { NAV, reaches } from "./kit/nav.ts";
import { Overview } from "./views/overview.ts";

export function dashboardRoutes(deps: DashboardDeps & Pick<Deps, "mailDns" | "passwords" | "texts">) {
  return new Elysia({ name: "dashboard" })
    .use(dashboardAssets())
    .use(accountPages(deps))
    .use(agentPages(deps))
    .use(evalPages(deps))
    .use(knowledgeSourcePages(deps))
    .use(knowledgePages(deps))
    .use(settingsPages(deps))
    .use(businessHoursPages(deps))
    .use(translationPages(deps))
    .use(helpCentrePages(deps))
    .use(textsPages(deps))
    .use(emailSettingsPages(deps))
    .use(connectorPages(deps))
    .use(customActionPages(deps))
    .use(inboxPages(deps))
    .use(savedReplyPages(deps))
    .use(conversationPages(deps))
    .use(customerPages(deps))
    .use(campaignPages(deps))
    .use(webhookPages(deps))
    .use(reportPages(deps))
    .use(activityPages(deps))
    .get("/dashboard", ({ request }) =>
      withMember(deps, request, null, async (ctx) => {
        const sections = NAV.filter((item) => item.key !== "home" && reaches(ctx, item));
        const status = ctx.can("org:manage") ? await setupStatus(deps, ctx.orgId) : null;
        const top = ctx.can("inbox:view") ? await headlines(deps, ctx.orgId) : null;
        return shellPage(ctx, {
          title: "Overview",
          active: "home",
          body: Overview({
            orgName: ctx.orgName,
            email: ctx.principal.member.email,
            roles: describeRoles(ctx.roles),
            headlines: top ? headlineCards(top) : null,
            status,
            sections,
          }),
        });
      }),
    )
    .post(
      "/dashboard/org",
      ({ request, body }) =>
        withMember(deps, request, null, (ctx) => {
          const chosen = ctx.principal.memberships.find((m) => m.orgId === body.org_id);
          if (!chosen) return redirect(deps, "/dashboard", { kind: "error", text: "You are not a member of that organisation." });
          const response = redirect(deps, "/dashboard", `Switched to ${chosen.orgName}.`);
          const secure = deps.config.baseUrl.startsWith("https:") ? "; Secure" : "";
          response.headers.append("set-cookie", `${ORG_COOKIE}=${chosen.orgId}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000${secure}`);
          return response;
        }),
      { body: t.Object({ org_id: t.String({ maxLength: 64 }) }) },
    );
}
