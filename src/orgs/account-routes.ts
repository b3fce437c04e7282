// The account and business-hours API: /api/me/profile, /api/me/password and /api/me/sessions for
// the signed-in member (any role), /api/business-hours under org:manage. The same service
// functions as the dashboard's account and business-hours pages.
import { Elysia, t } from "elysia";
import { authenticate, requireMember } from "../auth/guard.ts";
import { deleteOtherSessions, listMemberSessions } from "../auth/sessions.ts";
import type { Deps } from "../deps.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { requestMeta } from "../http/request-meta.ts";
import { memberActor } from "../kit/actor.ts";
import { BUSINESS_HOURS_LIMITS, type BusinessHours, WEEKDAYS } from "../kit/business-hours.ts";
import { ACCOUNT_LIMITS, changePassword, MEMBER_LANGUAGES, getProfile, updateProfile } from "./account.ts";
import { getBusinessHours, setBusinessHours } from "./business-hours.ts";
import { PASSWORD_MAX } from "./service.ts";

const security = [{ dashboard: [] }];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };
const Profile = t.Object({
  email: t.String(),
  name: t.String(),
  avatar_url: t.Union([t.String(), t.Null()]),
  language: t.Union([t.String(), t.Null()], { description: "The language you read (ISO 639-1); null: English." }),
});
const Interval = t.Array(t.String({ maxLength: 5 }), { minItems: 2, maxItems: 2, description: "[open, close]: HH:MM local times; close may be 24:00." });
const Hours = t.Object({
  time_zone: t.String({ maxLength: 64, description: "An IANA time zone, e.g. Europe/Paris." }),
  weekly: t.Object(Object.fromEntries(WEEKDAYS.map((d) => [d, t.Optional(t.Array(Interval, { maxItems: BUSINESS_HOURS_LIMITS.intervalsPerDay }))])), {
    additionalProperties: false,
  }),
  holidays: t.Array(t.String({ maxLength: 10, description: "YYYY-MM-DD, a whole local day closed" }), { maxItems: BUSINESS_HOURS_LIMITS.holidays }),
});
const HoursBody = t.Object({ business_hours: t.Union([Hours, t.Null()], { description: "null: no business hours (nothing promises a time)." }) });

export function accountRoutes(deps: Pick<Deps, "config" | "db" | "limiter" | "now" | "passwords">) {
  return new Elysia({ name: "account" })
    .get(
      "/api/me/profile",
      async ({ request }) => {
        const principal = await authenticate(deps, request);
        return getProfile(deps, principal.member.id);
      },
      { response: { 200: Profile, 401: ErrorBody }, detail: { summary: "Your display name and avatar", tags: ["Account"], security } },
    )
    .patch(
      "/api/me/profile",
      async ({ request, body }) => {
        const principal = await authenticate(deps, request);
        await updateProfile(deps, principal.member.id, { name: body.name, avatar_url: body.avatar_url, language: body.language });
        return getProfile(deps, principal.member.id);
      },
      {
        body: t.Object({
          name: t.String({
            maxLength: 1000,
            description: `Shown with your replies; at most ${ACCOUNT_LIMITS.name} characters after trimming; empty: the team's name.`,
          }),
          avatar_url: t.Union([t.String({ maxLength: 4096 }), t.Null()], { description: "An https:// image, or null." }),
          language: t.Optional(
            t.Union([t.String({ maxLength: 35 }), t.Null()], {
              description: `The language you read (${MEMBER_LANGUAGES.join(", ")}); customer messages in another are shown translated (README "Translation"). null: English; absent: unchanged.`,
            }),
          ),
        }),
        response: { 200: Profile, ...errors },
        detail: { summary: "Set your display name (replies in the widget, email From), avatar and reading language", tags: ["Account"], security },
      },
    )
    .put(
      "/api/me/password",
      async ({ request, body }) => {
        const principal = await authenticate(deps, request);
        return changePassword(deps, {
          memberId: principal.member.id,
          sessionId: principal.sessionId,
          current: body.current_password,
          next: body.new_password,
          ip: requestMeta(request).ip,
        });
      },
      {
        body: t.Object({ current_password: t.String({ maxLength: PASSWORD_MAX }), new_password: t.String({ maxLength: PASSWORD_MAX }) }),
        response: { 200: t.Object({ signed_out: t.Integer({ description: "Other sessions signed out." }) }), ...errors },
        detail: { summary: "Change your password (the current one required); every other session is signed out", tags: ["Account"], security },
      },
    )
    .get(
      "/api/me/sessions",
      async ({ request }) => {
        const principal = await authenticate(deps, request);
        const rows = await listMemberSessions(deps, principal.member.id);
        return {
          items: rows.map((s) => ({
            id: s.id,
            created_at: s.createdAt.toISOString(),
            expires_at: s.expiresAt.toISOString(),
            current: s.id === principal.sessionId,
          })),
        };
      },
      {
        response: {
          200: t.Object({
            items: t.Array(
              t.Object({ id: t.String(), created_at: t.String({ format: "date-time" }), expires_at: t.String({ format: "date-time" }), current: t.Boolean() }),
            ),
          }),
          401: ErrorBody,
        },
        detail: { summary: "Your sessions (never their tokens)", tags: ["Account"], security },
      },
    )
    .delete(
      "/api/me/sessions",
      async ({ request }) => {
        const principal = await authenticate(deps, request);
        return { signed_out: await deleteOtherSessions(deps, principal.member.id, principal.sessionId) };
      },
      {
        response: { 200: t.Object({ signed_out: t.Integer() }), 401: ErrorBody },
        detail: { summary: "Sign out everywhere else: every session but this one ends", tags: ["Account"], security },
      },
    )
    .get(
      "/api/business-hours",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "org:manage");
        return { business_hours: await getBusinessHours(deps, orgId) };
      },
      { response: { 200: HoursBody, 401: ErrorBody, 403: ErrorBody }, detail: { summary: "The org's business hours", tags: ["Business hours"], security } },
    )
    .put(
      "/api/business-hours",
      async ({ request, body }) => {
        const { orgId, principal } = await requireMember(deps, request, "org:manage");
        return { business_hours: await setBusinessHours(deps, orgId, memberActor(principal.member.id), body.business_hours as BusinessHours | null) };
      },
      {
        body: HoursBody,
        response: { 200: HoursBody, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
        detail: { summary: "Set or clear the org's business hours (time zone, weekly hours, holidays)", tags: ["Business hours"], security },
      },
    );
}
