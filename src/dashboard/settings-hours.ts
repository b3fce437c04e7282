// Dashboard: business hours (README "Business hours"), under org:manage: the org's time zone,
// its weekly hours (per weekday, intervals like "09:00-12:00, 14:00-17:00"; empty: closed) and
// holidays (one date a line), or none at all. Shows whether the team is open now and when it next
// opens. Through src/orgs/business-hours.ts, as /api/business-hours does.
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { html } from "../html/html.ts";
import { memberActor } from "../kit/actor.ts";
import { BUSINESS_HOURS_LIMITS, type BusinessHours, describeOpening, nextOpening, WEEKDAYS, type Weekday } from "../kit/business-hours.ts";
import { getBusinessHours, setBusinessHours } from "../orgs/business-hours.ts";
import {
  actionButton,
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

const PATH = "/dashboard/settings/hours";
const DAY_NAMES: Record<Weekday, string> = { mon: "Monday", tue: "Tuesday", wed: "Wednesday", thu: "Thursday", fri: "Friday", sat: "Saturday", sun: "Sunday" };
const FormBody = formBody({ text: 4000, items: 1 });

function intervalsText(intervals: [string, string][] | undefined): string {
  return (intervals ?? []).map(([a, b]) => `${a}-${b}`).join(", ");
}

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
  const v = refused?.values ?? {};
  const e = refused?.errors ?? {};
  const now = ctx.deps.now();
  const next = hours ? nextOpening(hours, now) : null;
  const status = !hours
    ? html`<p>No business hours are set: a hand-off promises an answer “as soon as they can”.</p>`
    : next && next.getTime() === now.getTime()
      ? html`<p><span class="badge ok">open now</span></p>`
      : html`<p><span class="badge warn">closed now</span> ${next ? `Next opening: ${describeOpening(hours, next)}.` : "No opening in the coming year."}</p>`;
  const body = html`${errorSummary(e)}<h1>Settings</h1>
${settingsNav(ctx, "hours")}
<section class="panel" aria-labelledby="hours-h"><h2 id="hours-h">Business hours</h2>
${status}
<p class="muted">Outside these hours, when a customer asks for a person, the widget says when a person will answer.</p>
<form method="post" action="${PATH}" novalidate>
${field({ name: "time_zone", label: "Time zone", value: v.time_zone ?? hours?.time_zone ?? "", error: e.time_zone, maxLength: 64, placeholder: "Europe/Paris", hint: "An IANA time zone name, like Europe/Paris or America/New_York." })}
<fieldset><legend>Weekly hours</legend>
${WEEKDAYS.map((day) => field({ name: day, label: DAY_NAMES[day], value: v[day] ?? intervalsText(hours?.weekly[day]), error: e[day], maxLength: 100, placeholder: "closed", hint: day === "mon" ? "Like 09:00-17:00, or 09:00-12:00, 14:00-17:00. Empty: closed." : undefined }))}
</fieldset>
${textarea({ name: "holidays", label: "Holidays", value: v.holidays ?? (hours?.holidays ?? []).join("\n"), error: e.holidays, rows: 4, hint: `One date a line, YYYY-MM-DD (at most ${BUSINESS_HOURS_LIMITS.holidays}).` })}
<div class="actions">${submit("Save business hours")}</div>
</form>
${hours ? actionButton(`${PATH}/clear`, "Remove business hours", { kind: "danger", confirm: "Remove the business hours?" }) : ""}
</section>`;
  return shellPage(ctx, { title: "Business hours", active: "settings", body, status: refused?.status });
}

export function businessHoursPages(deps: Deps) {
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
