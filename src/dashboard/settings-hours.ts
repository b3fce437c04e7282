// Dashboard: business hours (README "Business hours"), under org:manage: the org's time zone,
// its weekly hours (per weekday, intervals like "09:00-12:00, 14:00-17:00"; empty: closed) and
// holidays (one date a line), or none at all. Shows whether the team is open now and when it next
// opens. Through src/orgs/business-hours.ts, as /api/business-hours does.
import { Elysia } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { BUSINESS_HOURS_LIMITS, type BusinessHours, describeOpening, nextOpening, WEEKDAYS } from "../kit/business-hours.ts";
import { getBusinessHours, setBusinessHours } from "../orgs/business-hours.ts";
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
import { BusinessHoursPage } from "./views/settings-hours.ts";

const PATH = "/dashboard/settings/hours";
const FormBody = formBody({ text: 4000, items: 1 });

/** The form's values as hours, or field errors for what cannot even be read. */
function parseForm(v: FormValues): { input: BusinessHours; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const weekly: BusinessHours["weekly"] = {};
  for (const day of WEEKDAYS) {
    const raw = (v[day] ?? "").trim();
    if (!raw) continue;
    const parts = raw
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean);
    const intervals = parts.map((p) => p.split("-").map((x) => x.trim()));
    if (intervals.some((i) => i.length !== 2)) errors[day] = "Write intervals like 09:00-12:00, 14:00-17:00.";
    else weekly[day] = intervals as [string, string][];
  }
  const holidays = (v.holidays ?? "")
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);
  return { input: { time_zone: (v.time_zone ?? "").trim(), weekly, holidays }, errors };
}

async function hoursPage(ctx: DashboardContext, refused?: Refused): Promise<Response> {
  const hours = await getBusinessHours(ctx.deps, ctx.orgId);
  const now = ctx.deps.now();
  const next = hours ? nextOpening(hours, now) : null;
  const state =
    next && next.getTime() === now.getTime() ? { open: true as const } : { open: false as const, next: hours && next ? describeOpening(hours, next) : null };
  const body = BusinessHoursPage({
    viewer: ctx,
    path: PATH,
    hours,
    state,
    weekdays: WEEKDAYS,
    holidaysMax: BUSINESS_HOURS_LIMITS.holidays,
    values: refused?.values ?? {},
    errors: refused?.errors ?? {},
  });
  return shellPage(ctx, { title: "Business hours", active: "settings", body, status: refused?.status });
}

export function businessHoursPages(deps: DashboardDeps) {
  const role = "org:manage" as const;
  return new Elysia({ name: "dashboard-hours" })
    .get(PATH, ({ request }) => withMember(deps, request, role, (ctx) => hoursPage(ctx)))
    .post(
      PATH,
      ({ request, body }) =>
        withMember(deps, request, role, (ctx) =>
          submitForm({
            values: formValues(body),
            validate: parseForm,
            call: (input) => setBusinessHours(deps, ctx.orgId, memberActor(ctx.principal.member.id), input),
            done: () => redirect(deps, PATH, "Business hours saved."),
            render: (refused) => hoursPage(ctx, refused),
            refused: (error) =>
              error.status === 400
                ? detailErrors(error, ([first, second]) => (first === "weekly" ? (second ?? "mon") : (first ?? "time_zone")), "time_zone")
                : null,
          }),
        ),
      { body: FormBody },
    )
    .post(
      `${PATH}/clear`,
      ({ request }) =>
        withMember(deps, request, role, async (ctx) => {
          await setBusinessHours(deps, ctx.orgId, memberActor(ctx.principal.member.id), null);
          return redirect(deps, PATH, "Business hours removed.");
        }),
      { body: FormBody },
    );
}
