// Composes the feature plugins into one Elysia app and wraps it in the outer handler (request id,
// client IP, access log). No logic lives here.
import { cors } from "@elysiajs/cors";
import { Elysia } from "elysia";
import { activityRoutes } from "./activity/routes.ts";
import { agentRoutes } from "./agents/routes.ts";
import { evalPreviewRoutes } from "./agents/eval-preview-routes.ts";
import { evalRoutes } from "./agents/eval-routes.ts";
import { authRoutes } from "./auth/routes.ts";
import { inviteRoutes } from "./orgs/invite-page.ts";
import { passwordPages } from "./orgs/password-pages.ts";
import { memberRoutes } from "./orgs/member-routes.ts";
import { accountRoutes } from "./orgs/account-routes.ts";
import { textsRoutes } from "./texts/routes.ts";
import { getBusinessHours } from "./orgs/business-hours.ts";
import type { Deps } from "./deps.ts";
import { turnPorts } from "./agents/turn-ports.ts";
import { parseBody } from "./http/body.ts";
import { requestMeta } from "./http/request-meta.ts";
import { errorHandling } from "./http/errors.ts";
import { createHandler, type Handler } from "./http/handler.ts";
import { healthRoutes } from "./health/routes.ts";
import { metricsRoutes } from "./health/metrics-routes.ts";
import { apiViewerRoutes, openapiRoutes } from "./openapi.ts";
import { inboxLiveRoutes } from "./inbox/live-routes.ts";
import { inboxRoutes } from "./inbox/routes.ts";
import { sendReply } from "./translation/reply.ts";
import { translationRoutes } from "./translation/routes.ts";
import { customerRoutes } from "./inbox/customer-routes.ts";
import { savedReplyRoutes } from "./inbox/saved-reply-routes.ts";
import { sdkRoutes } from "./sdk/routes.ts";
import { chatRoutes } from "./sdk/chat-routes.ts";
import { voiceRoutes } from "./sdk/voice-routes.ts";
import { conversationRoutes } from "./conversations/routes.ts";
import { conversationLiveRoutes } from "./conversations/live-routes.ts";
import { reportRoutes } from "./reports/routes.ts";
import { csatPageRoutes } from "./inbox/csat-page.ts";
import { campaignRoutes } from "./campaigns/routes.ts";
import { seriesRoutes } from "./sdk/series-routes.ts";
import { unsubscribeRoutes } from "./campaigns/unsubscribe.ts";
import { optInRoutes } from "./campaigns/opt-in-routes.ts";
import { connectorRoutes } from "./connectors/routes.ts";
import { integrationRoutes } from "./integrations/routes.ts";
import { mcpRoutes } from "./mcp/routes.ts";
import { oauthRoutes } from "./oauth/routes.ts";
import { toggleRoutes } from "./tools/routes.ts";
import { docsRoutes } from "./knowledge/docs-routes.ts";
import { sourceRoutes } from "./sources/routes.ts";
import { synonymsRoutes } from "./knowledge/synonyms-routes.ts";
import { gapsRoutes } from "./knowledge/gaps-routes.ts";
import { embeddingsRoutes } from "./knowledge/embed-routes.ts";
import { stylesheet } from "./html/html.ts";
import { widgetRoutes } from "./widget/routes.ts";
import { helpCentreRoutes } from "./helpcentre/routes.ts";
import { helpWidgetRoutes } from "./helpcentre/widget-api.ts";
import { customDomainFront } from "./helpcentre/front.ts";
import { dashboardRoutes } from "./dashboard/routes.ts";
import { webhookRoutes } from "./webhooks/routes.ts";
import { inboundRoutes } from "./mail-in/routes.ts";
import { emailSettingsRoutes } from "./mail-in/settings-routes.ts";

export function createApp(deps: Deps) {
  const app = new Elysia()
    // The matched route template labels the request's metrics (src/http/handler.ts); a request
    // refused before its handler ran (validation, parse) gets it in onError.
    .onTransform({ as: "global" }, ({ request, route }) => {
      requestMeta(request).route = route;
    })
    .onError({ as: "global" }, ({ request, route }) => {
      if (route) requestMeta(request).route = route;
    })
    .use(errorHandling(deps.log))
    .onParse({ as: "global" }, ({ request, contentType, path }) => parseBody(request, contentType, path))
    .use(
      // Public APIs (widget SDK, tool server, OAuth) are called from other origins; dashboard
      // APIs use bearer tokens or a SameSite=Lax cookie, so `*` without credentials is safe.
      cors({
        origin: "*",
        credentials: false,
        maxAge: 600,
        methods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
        allowedHeaders: [
          "Authorization",
          "Content-Type",
          "Mcp-Protocol-Version",
          "Mcp-Session-Id",
          "Last-Event-ID",
          "X-Request-Id",
          "X-Org-Id",
          "X-User-Token",
          "X-User-Id",
        ],
        exposeHeaders: [
          "WWW-Authenticate",
          "Retry-After",
          "X-RateLimit-Limit",
          "X-RateLimit-Remaining",
          "X-RateLimit-Reset",
          "X-Request-Id",
          "X-Session-Id",
          "X-Agent-Id",
          "Mcp-Session-Id",
        ],
      }),
    )
    .get("/assets/app.css", () => stylesheet())
    .use(apiViewerRoutes())
    .use(healthRoutes(deps))
    .use(metricsRoutes(deps))
    .use(authRoutes(deps))
    .use(inviteRoutes(deps))
    .use(passwordPages(deps))
    .use(memberRoutes(deps))
    .use(accountRoutes(deps))
    .use(oauthRoutes(deps))
    .use(mcpRoutes(deps))
    .use(toggleRoutes(deps))
    .use(agentRoutes(deps))
    .use(evalRoutes(deps))
    .use(evalPreviewRoutes(deps))
    .use(docsRoutes(deps))
    .use(sourceRoutes(deps))
    .use(synonymsRoutes(deps))
    .use(gapsRoutes(deps))
    .use(embeddingsRoutes(deps))
    .use(integrationRoutes(deps))
    .use(connectorRoutes(deps))
    .use(activityRoutes(deps))
    .use(inboxLiveRoutes(deps))
    .use(savedReplyRoutes(deps))
    .use(inboxRoutes(deps, (input) => sendReply(deps, input)))
    .use(translationRoutes(deps))
    .use(customerRoutes(deps))
    .use(inboundRoutes(deps))
    .use(emailSettingsRoutes(deps))
    .use(sdkRoutes(deps))
    .use(chatRoutes(deps, turnPorts(deps)))
    .use(voiceRoutes(deps))
    .use(conversationRoutes(deps))
    .use(conversationLiveRoutes(deps))
    .use(reportRoutes(deps, { businessHours: (orgId) => getBusinessHours(deps, orgId) }))
    .use(csatPageRoutes(deps))
    .use(textsRoutes(deps))
    .use(campaignRoutes(deps))
    .use(seriesRoutes(deps))
    .use(optInRoutes(deps))
    .use(unsubscribeRoutes(deps))
    .use(webhookRoutes(deps))
    .use(widgetRoutes(deps))
    .use(helpCentreRoutes(deps))
    .use(helpWidgetRoutes(deps))
    .use(dashboardRoutes(deps));
  return app.use(openapiRoutes(deps, () => app.routes));
}

export function createAppHandler(deps: Deps): Handler {
  const app = createApp(deps);
  app.compile();
  // The help centre on an org's verified custom domain, before the routes (src/helpcentre/front.ts).
  return createHandler(customDomainFront(deps, app.fetch), {
    log: deps.log,
    trustProxy: deps.config.trustProxy,
    baseUrl: deps.config.baseUrl,
    metrics: deps.metrics,
  });
}
