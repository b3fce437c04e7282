// Business hours (README "Business hours"): when an org's people answer, in its own time zone —
// weekly opening intervals and whole-day holidays. Pure functions over a validated value and an
// instant, no clock of their own: `nextOpening` (the hand-off acknowledgement, and reports counting
// first-response time in business hours) and `businessMillisBetween`.
//
// Local wall times become instants through Intl (the IANA database the runtime ships). A local time
// that does not exist (the hour skipped when clocks go forward) is taken as the same time after the
// jump; one that exists twice (clocks go back) as the first of the two.

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const BUSINESS_HOURS_LIMITS = { intervalsPerDay: 4, holidays: 200 } as const;
/** How far ahead an opening is looked for (a year and a week covers every weekly pattern and a year of holidays). */
const HORIZON_DAYS = 372;

export interface BusinessHours {
  /** An IANA time zone, e.g. `Europe/Paris`. */
  time_zone: string;
  /** Per weekday, opening intervals `[open, close]` as `HH:MM` local times (`close` may be `24:00`), in order, not overlapping. */
  weekly: Partial<Record<Weekday, [string, string][]>>;
  /** Whole local days closed, `YYYY-MM-DD`. */
  holidays: string[];
}

export function isTimeZone(zone: string): boolean {
  if (!zone || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function minutesOf(hhmm: string, allow24: boolean): number | null {
  const m = /^([01]\d|2[0-4]):([0-5]\d)$/.exec(hhmm);
  if (!m) return null;
  const minutes = Number(m[1]) * 60 + Number(m[2]);
  if (minutes > 24 * 60 || (minutes === 24 * 60 && !allow24)) return null;
  return minutes;
}

function isDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value;
}

/** What is wrong with a value, as `{ path, message }` details (JSON Pointer paths); empty when valid. */
export function businessHoursProblems(value: BusinessHours): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  if (!isTimeZone(value.time_zone)) problems.push({ path: "/time_zone", message: "must be an IANA time zone, like Europe/Paris" });
  for (const [day, intervals] of Object.entries(value.weekly ?? {})) {
    if (!(WEEKDAYS as readonly string[]).includes(day)) {
      problems.push({ path: `/weekly/${day}`, message: `is not a weekday (${WEEKDAYS.join(", ")})` });
      continue;
    }
    if ((intervals ?? []).length > BUSINESS_HOURS_LIMITS.intervalsPerDay)
      problems.push({ path: `/weekly/${day}`, message: `at most ${BUSINESS_HOURS_LIMITS.intervalsPerDay} intervals` });
    let last = -1;
    (intervals ?? []).forEach(([open, close], i) => {
      const a = minutesOf(open, false);
      const b = minutesOf(close, true);
      if (a === null || b === null) problems.push({ path: `/weekly/${day}/${i}`, message: "must be two times HH:MM (the close may be 24:00)" });
      else if (a >= b) problems.push({ path: `/weekly/${day}/${i}`, message: "must open before it closes" });
      else if (a < last) problems.push({ path: `/weekly/${day}/${i}`, message: "must start after the previous interval ends" });
      else last = b;
    });
  }
  if (value.holidays.length > BUSINESS_HOURS_LIMITS.holidays) problems.push({ path: "/holidays", message: `at most ${BUSINESS_HOURS_LIMITS.holidays} days` });
  value.holidays.forEach((d, i) => {
    if (!isDate(d)) problems.push({ path: `/holidays/${i}`, message: "must be a date YYYY-MM-DD" });
  });
  return problems;
}

/** Made once per computation (building one is the costly part) and passed down. */
function formatter(zone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}

/** The zone's offset from UTC at `ms`, in milliseconds. */
function offsetAt(zone: Intl.DateTimeFormat, ms: number): number {
  const p = Object.fromEntries(zone.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  const local = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour) % 24, Number(p.minute), Number(p.second));
  return local - Math.floor(ms / 1000) * 1000;
}

/** The instant of a local wall time (day as UTC midnight ms of that calendar date, plus minutes). */
function localToUtc(zone: Intl.DateTimeFormat, dayMs: number, minutes: number): number {
  const wall = dayMs + minutes * 60_000;
  const first = wall - offsetAt(zone, wall);
  const second = wall - offsetAt(zone, first);
  if (second === first) return first;
  // Two candidates: the earlier one that maps back to the wall time (clocks went back), else the later (a skipped time).
  const back = (t: number) => t + offsetAt(zone, t) === wall;
  if (back(Math.min(first, second))) return Math.min(first, second);
  if (back(Math.max(first, second))) return Math.max(first, second);
  return Math.max(first, second);
}

/** The local calendar date of `ms` in `zone`, as UTC midnight ms. */
function localDay(zone: Intl.DateTimeFormat, ms: number): number {
  const local = ms + offsetAt(zone, ms);
  return Math.floor(local / 86_400_000) * 86_400_000;
}

/** Opening intervals `[start, end)` in UTC ms, in order, from the local day of `fromMs` on, within the horizon. */
function* openIntervals(hours: BusinessHours, fromMs: number): Generator<[number, number]> {
  const holidays = new Set(hours.holidays);
  const zone = formatter(hours.time_zone);
  const firstDay = localDay(zone, fromMs);
  for (let i = 0; i < HORIZON_DAYS; i++) {
    const day = firstDay + i * 86_400_000;
    if (holidays.has(new Date(day).toISOString().slice(0, 10))) continue;
    const weekday = WEEKDAYS[(new Date(day).getUTCDay() + 6) % 7]!;
    for (const [open, close] of hours.weekly[weekday] ?? []) {
      const start = localToUtc(zone, day, minutesOf(open, false)!);
      const end = localToUtc(zone, day, minutesOf(close, true)!);
      if (end > start) yield [start, end];
    }
  }
}

/** When people are next there: `at` itself while open, else the next opening; null when none in the coming year. */
export function nextOpening(hours: BusinessHours, at: Date): Date | null {
  const t = at.getTime();
  for (const [start, end] of openIntervals(hours, t)) if (end > t) return new Date(Math.max(start, t));
  return null;
}

export function isOpen(hours: BusinessHours, at: Date): boolean {
  return nextOpening(hours, at)?.getTime() === at.getTime();
}

/** Time open between `from` and `to` (e.g. a first response counted in business hours), in milliseconds. */
export function businessMillisBetween(hours: BusinessHours, from: Date, to: Date): number {
  let total = 0;
  const [a, b] = [from.getTime(), to.getTime()];
  if (b <= a) return 0;
  for (const [start, end] of openIntervals(hours, a)) {
    if (start >= b) break;
    total += Math.max(0, Math.min(end, b) - Math.max(start, a));
  }
  return total;
}

/**
 * The opening intervals `[start, end)` in UTC ms overlapping [from, to), in order: one pass over
 * the calendar for counting many spans in business hours (reports' first responses).
 */
export function openIntervalsBetween(hours: BusinessHours, from: Date, to: Date): [number, number][] {
  const out: [number, number][] = [];
  const b = to.getTime();
  let cursor = from.getTime();
  while (cursor < b) {
    let last = cursor;
    for (const [start, end] of openIntervals(hours, cursor)) {
      if (start >= b) return out;
      if (end > cursor) out.push([Math.max(start, cursor), end]);
      last = end;
    }
    // The horizon ran out before `to` (a span longer than a year): go on from its end.
    if (last <= cursor) return out;
    cursor = last;
  }
  return out;
}

/** "Monday 30 November at 09:00 (Europe/Paris time)": an opening as the org's customers read it. */
/**
 * An opening as the words of a sentence in `language` (the catalogue's `agent.handoff_away`): the
 * day and the time through Intl in that language, in the org's zone, and the zone's name.
 */
export function openingParts(hours: BusinessHours, at: Date, language: string): { day: string; time: string; zone: string } {
  // English as it was always said here ("Monday 8 December at 09:00"); another language as Intl writes it.
  const locale = language !== "en" && Intl.DateTimeFormat.supportedLocalesOf([language]).length > 0 ? language : "en-GB";
  const day = new Intl.DateTimeFormat(locale, { timeZone: hours.time_zone, weekday: "long", day: "numeric", month: "long" }).format(at);
  const time = new Intl.DateTimeFormat(locale, { timeZone: hours.time_zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(at);
  return { day, time, zone: hours.time_zone };
}

export function describeOpening(hours: BusinessHours, at: Date): string {
  const day = new Intl.DateTimeFormat("en-GB", { timeZone: hours.time_zone, weekday: "long", day: "numeric", month: "long" }).format(at);
  const time = new Intl.DateTimeFormat("en-GB", { timeZone: hours.time_zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(at);
  return `${day} at ${time} (${hours.time_zone} time)`;
}
