// The time zone a report counts its hours of the day in (`tz`, README "Reports"): an IANA name
// such as Europe/Paris, as the platform's Intl knows it, in its canonical spelling. An offset such as
// +05:30 is refused: PostgreSQL reads a bare offset as a POSIX zone, whose sign is the reverse
// (PostgreSQL documentation, "8.5.3. Time Zones"), so it would count the hours on the wrong side of UTC.
import { AppError } from "../errors.ts";

export const ZONE_MAX = 64;

function refused(): AppError {
  return AppError.badRequest("tz must be an IANA time zone, like Europe/Paris.", [{ path: "/tz", message: "must be an IANA time zone, like Europe/Paris" }]);
}

/** The zone's canonical name, or null when it is none we can count hours in. */
export function canonicalZone(zone: string): string | null {
  if (!zone || zone.length > ZONE_MAX) return null;
  try {
    const name = new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
    return /^[A-Za-z][A-Za-z0-9_+\-]*(\/[A-Za-z0-9_+\-]+)*$/.test(name) ? name : null;
  } catch {
    return null;
  }
}

/** `tz` checked: its canonical name; UTC when absent; 400 naming /tz otherwise. */
export function reportZone(tz: string | undefined): string {
  if (tz === undefined) return "UTC";
  const name = canonicalZone(tz);
  if (!name) throw refused();
  return name;
}

/** A database that does not know a zone Intl knows (their tz data differ in age): the same 400. */
export function zoneError(error: unknown): AppError | null {
  const codeOf = (e: unknown) => (e && typeof e === "object" && "code" in e ? (e as { code: unknown }).code : undefined);
  const cause = error && typeof error === "object" && "cause" in error ? (error as { cause: unknown }).cause : undefined;
  return codeOf(error) === "22023" || codeOf(cause) === "22023" ? refused() : null;
}
