// POST /api/sdk/series (README "Email series"): the org's site or backend enrols a customer in an
// active email series, or removes them, with the widget key. Mounted next to the other /api/sdk
// routes, under the same app-wide CORS policy (src/app.ts).
//
// Who the customer is (docs/decisions.md "Series enrolment through the SDK"):
// - `user_id` (+ `user_token`): resolved exactly as every SDK call resolves identity
//   (src/sdk/identity.ts): a token is always verified; under identity verification a user_id
//   without one is 403 `user_token_required`; an unverified call never reaches a verified customer.
// - `email` alone (refused under identity verification, where only a signed user_id may name a
//   customer): never acts on anyone by itself. `enroll` for an address no verified customer holds
//   asks the address's owner through a double opt-in email (src/campaigns/opt-in.ts); a verified
//   customer's address is left alone (they join with their user_token), and so is every address
//   on `remove` (each series email carries its own unsubscribe link). The answer is the same 202
//   whatever the address: the key is public, and a different answer would tell anyone holding it
//   which addresses are the org's customers (docs/decisions.md "Series by email: one answer").
import { Elysia, t } from "elysia";
import type { Actor } from "../kit/actor.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { requireWidgetKey } from "./auth.ts";
import { requestMeta } from "../http/request-meta.ts";
import { identitySettings, resolveIdentity } from "./identity.ts";
import { limitSdkRequest } from "./limits.ts";
import { limitOptInRequest, OPT_IN, requestByEmail } from "../campaigns/opt-in.ts";
import { enrolCustomer, notActive, removeCustomer } from "../campaigns/enrolments.ts";
import { findCampaign } from "../campaigns/lifecycle.ts";

const ErrorOut = t.Object({
  error: t.Object({
    code: t.String(),
    message: t.String(),
    details: t.Optional(t.Array(t.Object({ path: t.String(), message: t.String() }))),
    request_id: t.String(),
  }),
});

export const SeriesBody = t.Object(
  {
    campaign: t.String({ minLength: 1, maxLength: 64, description: "The campaign's id or its stable slug." }),
    action: t.Union([t.Literal("enroll"), t.Literal("remove")], { description: "enroll (idempotent) or remove (stops future steps at once)." }),
    user_id: t.Optional(t.String({ minLength: 1, maxLength: 256, description: "The org's id for the customer." })),
    user_token: t.Optional(
      t.String({ minLength: 1, maxLength: 4096, description: "HS256 JWT from the org's backend; required with user_id under identity verification." }),
    ),
    email: t.Optional(
      t.String({
        format: "email",
        maxLength: 320,
        description:
          "Instead of user_id (not accepted under identity verification): enroll mails the address a double opt-in link, and the series starts when its owner confirms; nothing happens for an address a verified customer holds (they join with user_id and user_token), nor on remove (every series email has an unsubscribe link).",
      }),
    ),
  },
  { additionalProperties: false, description: "Name the customer with user_id (and user_token) or with email." },
);

export const SeriesResult = t.Object({
  campaign: t.Object({ id: t.String(), slug: t.String() }),
  customer_id: t.String(),
  action: t.String(),
  state: t.String({ description: "The enrolment's state afterwards: active, completed, removed or unsubscribed (an unsubscribed customer is never mailed)." }),
  created: t.Boolean({ description: "Whether this call enrolled the customer for the first time." }),
});

/** The answer to a request naming the customer by email: the same whoever the address belongs to, if anyone. */
export const SeriesAccepted = t.Object(
  {
    campaign: t.Object({ id: t.String(), slug: t.String() }),
    action: t.String(),
    accepted: t.Literal(true),
  },
  {
    description:
      "202 for every request that names the customer by email alone, whoever the address belongs to (no customer id, state or error tells them apart). enroll: when no verified customer holds the address, one double opt-in email is sent and the series starts only when its link is confirmed.",
  },
);

export function seriesRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "limiter" | "now" | "widgetKeys">) {
  return (
    new Elysia({ name: "sdk-series" })
      // As for every keyed SDK route: key and rate limits before the body is validated, so a request
      // without a valid key is 401 whatever its body, and invalid bodies count against the quota.
      .derive(async ({ request }) => {
        const auth = await requireWidgetKey(deps, request);
        await limitSdkRequest(deps, auth, request);
        return { auth };
      })
      .post(
        "/api/sdk/series",
        async ({ body, auth, set, request }) => {
          const orgId = auth.orgId;
          if (body.user_id === undefined && body.email === undefined)
            throw AppError.badRequest("Name the customer with user_id (and user_token) or email.", [
              { path: "/user_id", message: "user_id or email is required" },
            ]);
          const campaign = await findCampaign(deps, orgId, body.campaign);
          if (!campaign)
            throw new AppError(404, "campaign_not_found", `No campaign ${body.campaign}.`, [
              { path: "/campaign", message: "is not a campaign id or slug of this organisation" },
            ]);
          if (body.user_id === undefined) {
            // By email: every outcome answers the same 202 (see the top of this file). What does not
            // depend on the address is still refused plainly, before the address is looked up.
            if (body.action === "enroll" && campaign.status !== "active") throw notActive(campaign);
            if ((await identitySettings(deps, orgId)).enabled)
              throw new AppError(
                403,
                "user_token_required",
                "This organisation requires identity verification: name the customer with user_id and a user_token signed by your backend.",
              );
            if (body.action === "enroll") {
              // Charged for every address, before it is looked up: a 429 says nothing about whose it is.
              await limitOptInRequest(deps, { orgId, keyId: auth.keyId, ip: requestMeta(request).ip, email: body.email! });
              await requestByEmail(deps, { orgId, campaign, email: body.email! });
            }
            set.status = 202;
            return { campaign: { id: campaign.id, slug: campaign.slug }, action: body.action, accepted: true as const };
          }
          const endUser = (await resolveIdentity(deps, orgId, { user_id: body.user_id, user_token: body.user_token, email: body.email })).endUser;
          if (!endUser)
            throw AppError.badRequest("An anonymous visitor cannot be enrolled: send the customer's user_id.", [
              { path: "/user_id", message: "must name a customer" },
            ]);
          const actor: Actor = { kind: "customer", endUserId: endUser.id, sessionId: `widget-key:${auth.keyId}` };
          if (body.action === "enroll") {
            const { enrolment, created } = await enrolCustomer(deps, { orgId, actor, campaign, endUser, source: "sdk" });
            return { campaign: { id: campaign.id, slug: campaign.slug }, customer_id: endUser.id, action: body.action, state: enrolment.state, created };
          }
          const enrolment = await removeCustomer(deps, { orgId, actor, campaign, endUser });
          if (!enrolment) throw new AppError(404, "not_enrolled", "That customer is not enrolled in this campaign.");
          return { campaign: { id: campaign.id, slug: campaign.slug }, customer_id: endUser.id, action: body.action, state: enrolment.state, created: false };
        },
        {
          body: SeriesBody,
          response: { 200: SeriesResult, 202: SeriesAccepted, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
          detail: {
            summary: "Enrol a customer in an email series, or remove them",
            description:
              "Widget key. enroll is idempotent (a removed customer resumes where they were; no step is ever sent twice); remove stops future steps at once. " +
              "Unknown campaign: 404 campaign_not_found; draft, paused or archived campaign on enroll: 409 campaign_not_active. " +
              "Named by user_id: 200 with the enrolment. Named by email alone (identity verification off): 202 accepted, the same answer whether or not the address belongs to a customer; " +
              `enroll then mails a double opt-in link to an address no verified customer holds (the link works ${OPT_IN.expirySeconds / 3600} hours), limited to ${OPT_IN.perAddress.limit} requests per address a day and ${OPT_IN.perKeyIp.limit} per key and client IP an hour (429), and remove changes nothing. ` +
              "Under identity verification a user_id needs a user_token (403 user_token_required). Counts against the widget key's rate limits (429).",
            tags: ["Widget SDK", "Email series"],
            security: [{ widgetKey: [] }],
          },
        },
      )
  );
}
