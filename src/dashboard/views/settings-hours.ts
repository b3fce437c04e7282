// The business hours page: whether the team is open now (and when it next opens), the time zone,
// the weekly hours per weekday ("09:00-12:00, 14:00-17:00"; empty: closed), the holidays, and the
// button removing them all.
import { html } from "../../html/html.ts";
import type { BusinessHours, Weekday } from "../../kit/business-hours.ts";
import { actionButton, type FieldErrors, field, type FormValues, submit, textarea } from "../kit/fields.ts";
import type { Viewer } from "../shell.ts";
import { SettingsSection } from "./settings-section.ts";

const DAY_NAMES: Record<Weekday, string> = { mon: "Monday", tue: "Tuesday", wed: "Wednesday", thu: "Thursday", fri: "Friday", sat: "Saturday", sun: "Sunday" };

export interface BusinessHoursProps {
  viewer: Pick<Viewer, "can">;
  path: string;
  hours: BusinessHours | null;
  /** Open now, or closed with the next opening in words (null: none in the coming year). */
  state: { open: true } | { open: false; next: string | null };
  weekdays: readonly Weekday[];
  holidaysMax: number;
  values: FormValues;
  errors: FieldErrors;
}

function intervalsText(intervals: [string, string][] | undefined): string {
  return (intervals ?? []).map(([a, b]) => `${a}-${b}`).join(", ");
}

function openState(p: BusinessHoursProps) {
  if (!p.hours) return html`<p>No business hours are set: a hand-off promises an answer “as soon as they can”.</p>`;
  if (p.state.open) return html`<p><span class="badge ok">open now</span></p>`;
  const next = p.state.next ? `Next opening: ${p.state.next}.` : "No opening in the coming year.";
  return html`<p><span class="badge warn">closed now</span> ${next}</p>`;
}

function dayField(p: BusinessHoursProps, day: Weekday) {
  return field({
    name: day,
    label: DAY_NAMES[day],
    value: p.values[day] ?? intervalsText(p.hours?.weekly[day]),
    error: p.errors[day],
    maxLength: 100,
    placeholder: "closed",
    hint: day === "mon" ? "Like 09:00-17:00, or 09:00-12:00, 14:00-17:00. Empty: closed." : undefined,
  });
}

export function BusinessHoursPage(p: BusinessHoursProps) {
  const { values: v, errors: e } = p;
  const zone = field({
    name: "time_zone",
    label: "Time zone",
    value: v.time_zone ?? p.hours?.time_zone ?? "",
    error: e.time_zone,
    maxLength: 64,
    placeholder: "Europe/Paris",
    hint: "An IANA time zone name, like Europe/Paris or America/New_York.",
  });
  const holidays = textarea({
    name: "holidays",
    label: "Holidays",
    value: v.holidays ?? (p.hours?.holidays ?? []).join("\n"),
    error: e.holidays,
    rows: 4,
    hint: `One date a line, YYYY-MM-DD (at most ${p.holidaysMax}).`,
  });
  const remove = p.hours ? actionButton(`${p.path}/clear`, "Remove business hours", { kind: "danger", confirm: "Remove the business hours?" }) : "";
  const content = html`${openState(p)}
<p class="muted">Outside these hours, when a customer asks for a person, the widget says when a person will answer.</p>
<form method="post" action="${p.path}" novalidate>
${zone}
<fieldset><legend>Weekly hours</legend>
${p.weekdays.map((day) => dayField(p, day))}
</fieldset>
${holidays}
<div class="actions">${submit("Save business hours")}</div>
</form>
${remove}`;
  return SettingsSection({ viewer: p.viewer, current: "hours", id: "hours-h", title: "Business hours", errors: e, content });
}
