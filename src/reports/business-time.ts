// First responses counted in business hours (README "Reports"): the org's calendar
// (src/kit/business-hours.ts) walked once over all the spans of a report, then each span measured
// by prefix sums, so thousands of tickets cost one pass over the period's opening intervals.
import { type BusinessHours, openIntervalsBetween } from "../kit/business-hours.ts";

/** The business-hours length in ms of each span `[from, to)` (UTC ms); 0 for an empty span. */
export function businessSpans(hours: BusinessHours, spans: [number, number][]): number[] {
  if (spans.length === 0) return [];
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const [a, b] of spans) {
    if (a < lo) lo = a;
    if (b > hi) hi = b;
  }
  if (!(hi > lo)) return spans.map(() => 0);
  const open = openIntervalsBetween(hours, new Date(lo), new Date(hi));
  // before[k]: business time in the intervals before the k-th.
  const before = [0];
  for (const [start, end] of open) before.push(before.at(-1)! + (end - start));
  /** Business time in [lo, t). */
  const upTo = (t: number): number => {
    let l = 0;
    let r = open.length; // the first interval starting at or after t
    while (l < r) {
      const m = (l + r) >> 1;
      if (open[m]![0] < t) l = m + 1;
      else r = m;
    }
    if (l === 0) return 0;
    const [start, end] = open[l - 1]!;
    return before[l - 1]! + Math.min(end, t) - start;
  };
  return spans.map(([a, b]) => (b <= a ? 0 : upTo(b) - upTo(a)));
}

/** PostgreSQL's `percentile_cont` (linear interpolation between the closest ranks) over ascending values. */
export function percentileCont(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const at = p * (sorted.length - 1);
  const i = Math.floor(at);
  const next = sorted[Math.min(i + 1, sorted.length - 1)]!;
  return sorted[i]! + (next - sorted[i]!) * (at - i);
}
