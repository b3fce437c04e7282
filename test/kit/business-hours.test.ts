// Business hours as pure functions of a value and an instant: the next opening (open now, later the
// same day, after a weekend, after a holiday, across both DST changes of Europe/Paris and of
// America/New_York), open time between two instants, and validation (IANA zones through Intl).
import { describe, expect, test } from "bun:test";
import { type BusinessHours, businessHoursProblems, businessMillisBetween, describeOpening, isOpen, nextOpening } from "../../src/kit/business-hours.ts";

const paris: BusinessHours = {
  time_zone: "Europe/Paris",
  weekly: {
    mon: [["09:00", "17:00"]],
    tue: [["09:00", "17:00"]],
    wed: [
      ["09:00", "12:00"],
      ["14:00", "17:00"],
    ],
    thu: [["09:00", "17:00"]],
    fri: [["09:00", "17:00"]],
  },
  holidays: ["2026-12-25"],
};
const at = (iso: string) => new Date(iso);

describe("nextOpening", () => {
  test("open now: the instant itself; the closing minute is closed", () => {
    expect(nextOpening(paris, at("2026-11-30T10:00:00Z"))).toEqual(at("2026-11-30T10:00:00Z")); // Monday 11:00 CET
    expect(isOpen(paris, at("2026-11-30T08:00:00Z"))).toBe(true); // 09:00 CET, the opening minute
    expect(isOpen(paris, at("2026-11-30T16:00:00Z"))).toBe(false); // 17:00 CET, closed
    expect(nextOpening(paris, at("2026-11-30T16:00:00Z"))).toEqual(at("2026-12-01T08:00:00Z"));
  });

  test("a lunch break, a weekend, a holiday", () => {
    expect(nextOpening(paris, at("2026-12-02T11:30:00Z"))).toEqual(at("2026-12-02T13:00:00Z")); // Wednesday 12:30 → 14:00
    expect(nextOpening(paris, at("2026-11-27T17:00:00Z"))).toEqual(at("2026-11-30T08:00:00Z")); // Friday 18:00 → Monday 09:00
    expect(nextOpening(paris, at("2026-12-24T17:00:00Z"))).toEqual(at("2026-12-28T08:00:00Z")); // Thursday eve → Christmas Friday skipped → Monday
  });

  test("across the spring change (Paris 29 March 2026: 02:00 → 03:00)", () => {
    // Friday 27 March 18:00 CET → Monday 30 March 09:00 CEST = 07:00Z (not 08:00Z).
    expect(nextOpening(paris, at("2026-03-27T17:00:00Z"))).toEqual(at("2026-03-30T07:00:00Z"));
    const night: BusinessHours = { time_zone: "Europe/Paris", weekly: { sun: [["02:30", "04:00"]] }, holidays: [] };
    // 02:30 does not exist that night: taken as after the jump (03:30 CEST = 01:30Z).
    expect(nextOpening(night, at("2026-03-28T23:00:00Z"))).toEqual(at("2026-03-29T01:30:00Z"));
  });

  test("across the autumn change (New York 1 November 2026: 02:00 → 01:00)", () => {
    const ny: BusinessHours = { time_zone: "America/New_York", weekly: { mon: [["09:00", "17:00"]], sun: [["01:30", "03:00"]] }, holidays: [] };
    // Friday evening → Sunday 01:30, which happens twice: the first (EDT, 05:30Z).
    expect(nextOpening(ny, at("2026-10-30T22:00:00Z"))).toEqual(at("2026-11-01T05:30:00Z"));
    // Monday 2 November 09:00 EST = 14:00Z (EDT would be 13:00Z).
    expect(nextOpening(ny, at("2026-11-01T09:00:00Z"))).toEqual(at("2026-11-02T14:00:00Z"));
    // Sunday 01:30 EDT to 03:00 EST is two and a half hours open.
    expect(businessMillisBetween(ny, at("2026-11-01T00:00:00Z"), at("2026-11-01T12:00:00Z"))).toBe(2.5 * 3600_000);
  });

  test("never open: null", () => {
    expect(nextOpening({ time_zone: "UTC", weekly: {}, holidays: [] }, at("2026-11-30T10:00:00Z"))).toBeNull();
  });
});

describe("businessMillisBetween", () => {
  test("a first response from Friday 16:00 to Monday 10:00 is two hours of business time", () => {
    expect(businessMillisBetween(paris, at("2026-11-27T15:00:00Z"), at("2026-11-30T09:00:00Z"))).toBe(2 * 3600_000);
    expect(businessMillisBetween(paris, at("2026-11-30T09:00:00Z"), at("2026-11-27T15:00:00Z"))).toBe(0);
    // Wednesday 11:00 → 15:00 with a lunch break: 2 hours.
    expect(businessMillisBetween(paris, at("2026-12-02T10:00:00Z"), at("2026-12-02T14:00:00Z"))).toBe(2 * 3600_000);
  });
});

describe("validation", () => {
  test("an IANA zone, weekdays, HH:MM intervals in order, real dates", () => {
    expect(businessHoursProblems(paris)).toEqual([]);
    expect(businessHoursProblems({ ...paris, time_zone: "Mars/Olympus" }).map((p) => p.path)).toEqual(["/time_zone"]);
    expect(businessHoursProblems({ ...paris, time_zone: "" }).map((p) => p.path)).toEqual(["/time_zone"]);
    const bad = businessHoursProblems({
      time_zone: "UTC",
      weekly: {
        mon: [["17:00", "09:00"]],
        tue: [["9:00", "17:00"]],
        wed: [
          ["09:00", "12:00"],
          ["11:00", "13:00"],
        ],
        thu: [["00:00", "24:00"]],
        fri: [["24:00", "24:00"]],
        funday: [],
      } as BusinessHours["weekly"],
      holidays: ["2026-02-30", "2026-12-25"],
    });
    expect(bad.map((p) => p.path)).toEqual(["/weekly/mon/0", "/weekly/tue/0", "/weekly/wed/1", "/weekly/fri/0", "/weekly/funday", "/holidays/0"]);
    const many = businessHoursProblems({
      ...paris,
      weekly: {
        mon: [
          ["01:00", "02:00"],
          ["03:00", "04:00"],
          ["05:00", "06:00"],
          ["07:00", "08:00"],
          ["09:00", "10:00"],
        ],
      },
    });
    expect(many.map((p) => p.path)).toEqual(["/weekly/mon"]);
  });

  test("an opening described in the org's zone", () => {
    expect(describeOpening(paris, at("2026-11-30T08:00:00Z"))).toBe("Monday 30 November at 09:00 (Europe/Paris time)");
  });
});
