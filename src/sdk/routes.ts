// The public widget SDK API under /api/sdk (docs/interface.md 4.5; README "Widget SDK"). Every
// keyed route starts with requireWidgetKey and the SDK rate limits; the org comes from the key,
// never the body.
// CORS for every /api/sdk response (errors and unknown paths included) is the app-wide policy in
// src/app.ts: `Access-Control-Allow-Origin: *`, no credentials, the exposed headers the widget
// reads; the per-org allowed origins are enforced here, server-side (src/sdk/auth.ts).
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { requireWidgetKey } from "./auth.ts";
import { contactRoutes } from "./contact-routes.ts";
import { conversationRoutes } from "./conversation-routes.ts";
import { csatSettingsRoutes } from "./csat-settings.ts";
import { feedbackRoutes } from "./feedback-routes.ts";
import { limitConfigRequest, limitSdkRequest } from "./limits.ts";
import { widgetSettingsRoutes } from "./settings-routes.ts";
import { speechSettingsRoutes } from "./speech-settings-routes.ts";
import {
  ConfigQuery,
  CreateTicketBody,
  EventsAccepted,
  EventsBody,
  IdentifyCompanyBody,
  IdentifyUserBody,
  SdkCompany,
  SdkConfig,
  SdkTicket,
  SdkUser,
} from "./schemas.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { recordEvents } from "./events.ts";
import { createSdkTicket, identifyCompanyFor, identifyUser, sdkConfig } from "./service.ts";

/** How long browsers and CDNs may reuse GET /api/sdk/config: an agent change shows within a minute. */
export const CONFIG_MAX_AGE_SECONDS = 60;

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

export function sdkRoutes(
  deps: Pick<
    Deps,
    "cipher" | "config" | "db" | "guard" | "invalidation" | "limiter" | "live" | "log" | "metrics" | "now" | "statements" | "texts" | "widgetKeys"
  >,
) {
  const plugin = new Elysia({ name: "sdk" })
    .use(keyedRoutes(deps))
    .use(conversationRoutes(deps))
    .use(feedbackRoutes(deps))
    .use(contactRoutes(deps))
    .use(csatSettingsRoutes(deps))
    // The dashboard side of the same settings (org:manage), mounted with the SDK it governs.
    .use(widgetSettingsRoutes(deps))
    .use(speechSettingsRoutes(deps))
    .get(
      "/api/sdk/config",
      async ({ query, request, set }) => {
        await limitConfigRequest(deps, request);
        const config = await sdkConfig(deps, query.org_id, query.locale);
        set.headers["cache-control"] = `public, max-age=${CONFIG_MAX_AGE_SECONDS}`;
        return config;
      },
      {
        query: ConfigQuery,
        response: { 200: SdkConfig, ...errors },
        detail: { summary: "The widget's public configuration (docs/interface.md 2.7)", tags: ["Widget SDK"] },
      },
    );
  return plugin;
}

/**
 * The keyed routes. The key and the rate limits are checked in `derive`, which Elysia runs before
 * body validation: a request without a valid key is 401 whatever its body, and invalid bodies
 * count against the quota like any other request.
 */
function keyedRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "limiter" | "live" | "now" | "widgetKeys">) {
  return new Elysia({ name: "sdk-keyed" })
    .derive(async ({ request, path }) => {
      const auth = await requireWidgetKey(deps, request);
      await limitSdkRequest(deps, auth, request, path === "/api/sdk/tickets/create" ? "ticket" : "request");
      return { auth };
    })
    .post(
      "/api/sdk/users/identify",
      async ({ body, auth }) => {
        return identifyUser(deps, auth.orgId, body);
      },
      {
        body: IdentifyUserBody,
        response: { 200: SdkUser, ...errors },
        detail: { summary: "Create or update an end user", tags: ["Widget SDK"], security: [{ widgetKey: [] }] },
      },
    )
    .post(
      "/api/sdk/companies/identify",
      async ({ body, auth }) => {
        return identifyCompanyFor(deps, auth.orgId, body);
      },
      {
        body: IdentifyCompanyBody,
        response: { 200: SdkCompany, ...errors },
        detail: { summary: "Create or update a company, optionally linking a user", tags: ["Widget SDK"], security: [{ widgetKey: [] }] },
      },
    )
    .post(
      "/api/sdk/events",
      async ({ body, auth }) => {
        return recordEvents(deps, auth.orgId, body);
      },
      {
        body: EventsBody,
        response: { 200: EventsAccepted, ...errors },
        detail: { summary: "Record a batch of behavioural events", tags: ["Widget SDK"], security: [{ widgetKey: [] }] },
      },
    )
    .post(
      "/api/sdk/tickets/create",
      async ({ body, auth, request, set }) => {
        const ticket = await createSdkTicket(deps, auth.orgId, body, { browser: request.headers.has("origin") });
        set.status = 201;
        return ticket;
      },
      {
        body: CreateTicketBody,
        response: { 201: SdkTicket, ...errors },
        detail: { summary: "Open a support ticket", tags: ["Widget SDK"], security: [{ widgetKey: [] }] },
      },
    );
}
