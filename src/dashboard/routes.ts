// The dashboard under /dashboard: the shell's own routes (overview, org switch) and each page
// module's plugin. Pages call the same service functions as the JSON APIs, never HTTP to
// ourselves. Each page module exports `xxxPages(deps)` (an Elysia plugin) and is mounted here.
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { setupStatus } from "../setup/status.ts";
import { html } from "../html/html.ts";
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
import { emailSettingsPages } from "./email-settings.ts";
import { conversationPages } from "./conversations.ts";
import { customerPages } from "./customers.ts";
import { campaignPages } from "./campaigns.ts";
import { inboxPages } from "./inbox.ts";
import { savedReplyPages } from "./inbox-saved-replies.ts";
import { webhookPages } from "./webhooks.ts";
import { headlineCards, reportPages } from "./reports.ts";
import { headlines } from "../reports/report.ts";
import { describeRoles } from "../auth/roles.ts";
import { ORG_COOKIE } from "../auth/sessions.ts";
import { redirect, shellPage, withMember } from "./kit/index.ts";
import { NAV, reaches } from "./shell.ts";

const BLURBS: Record<string, string> = {
  agents: "Instructions, skills, routing, the widget's look and the actions each agent may use.",
  knowledge: "The documents agents answer from: write, import, publish.",
  inbox: "Tickets, conversations and customers.",
  reports: "Conversations, AI resolution, hand-offs, response times and CSAT over a period.",
  campaigns: "Email series: steps, previews, activation, the outbox.",
  connectors: "MCP servers whose tools agents may call.",
  "custom-actions": "HTTP endpoints of your own systems, callable as actions.",
  settings: "Widget keys and snippet, identity verification, origins, connected clients, members, the activity log.",
  webhooks: "Signed event deliveries to your own systems, their log and replays.",
};

/** Where each setup_status item is done in the dashboard. */
const CHECKLIST: Record<string, { label: string; href: string }> = {
  active_agent: { label: "An active agent", href: "/dashboard/agents" },
  docs: { label: "Published documents", href: "/dashboard/knowledge" },
  widget_installed: { label: "The widget on your site", href: "/dashboard/settings#keys-h" },
  identity_verification: { label: "Identity verification", href: "/dashboard/settings#identity-h" },
  connectors: { label: "Connectors or custom actions", href: "/dashboard/connectors" },
};

export function dashboardRoutes(deps: Deps) {
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
          body: html`<h1>${ctx.orgName}</h1>
<p class="muted">Signed in as ${ctx.principal.member.email} · Your roles: ${describeRoles(ctx.roles)}</p>
${top ? html`<section aria-labelledby="last7-h"><h2 id="last7-h">Last 7 days <a class="muted" href="/dashboard/reports">Reports</a></h2>${headlineCards(top)}</section>` : ""}
${status ? html`<section class="panel" aria-labelledby="setup-h"><h2 id="setup-h">Setup ${status.ready ? html`<span class="badge ok">ready</span>` : html`<span class="badge warn">not ready yet</span>`}</h2><ul class="checklist">${status.items.map((item) => html`<li><span class="badge ${item.done ? "ok" : item.required ? "warn" : ""}">${item.done ? "done" : item.required ? "to do" : "optional"}</span> <a href="${CHECKLIST[item.key]?.href ?? "/dashboard"}">${CHECKLIST[item.key]?.label ?? item.key}</a> <span class="muted">${item.detail}</span></li>`)}</ul></section>` : ""}
${sections.length === 0 ? html`<p>Your membership holds no dashboard roles yet. Ask an admin to grant one.</p>` : html`<div class="cards">${sections.map((s) => html`<a class="panel" href="${s.href}"><strong>${s.label}</strong><span class="muted">${BLURBS[s.key] ?? ""}</span></a>`)}</div>`}`,
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
