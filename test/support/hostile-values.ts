// Hostile values shared by the sign-in tests and the hostile-input run over every route: `return_to`
// values with the path sign-in must send the browser to (README "Dashboard sign-in and API"), and
// session cookies that cannot be percent-decoded.

/** Cookie values decodeURIComponent refuses: a cut sequence, a bare %, bad hex, overlong UTF-8, a surrogate. */
export const UNDECODABLE_COOKIES: readonly string[] = ["%E0%A4%A", "%", "%ZZ", "a%2", "%C0%80", "%ED%A0%80", "%FF"];

/** Forms that try to leave BASE_URL's origin, or name no page of ours: all land on the dashboard. */
export const HOSTILE_RETURN_TO: readonly string[] = [
  // Protocol-relative and backslash forms (a browser reads `\` as `/` in special URLs).
  "//evil.example/x",
  "///evil.example/x",
  "/\\evil.example/x",
  "\\\\evil.example/x",
  "/\\/evil.example/x",
  // Dot segments that normalise to `//host` (what is redirected to, not what was sent, is checked).
  "/.//evil.example/phish",
  "/..//evil.example/x",
  "/./..//evil.example/x",
  "/dashboard/../..//evil.example/x",
  "/x/..//evil.example/x",
  "/%2e%2e//evil.example/x",
  "/%2E%2E//evil.example/x",
  "/.%2e//evil.example/x",
  // Percent-encoded slashes and backslashes, and controls, in the path.
  "%2F%2Fevil.example/x",
  "/%2F%2Fevil.example/x",
  "/%2fevil.example/x",
  "/%5Cevil.example/x",
  "/%5c%5cevil.example/x",
  "/%09/evil.example/x",
  // Tabs and newlines inside (a URL parser drops them, which would join `/` and `/`).
  "/\t/evil.example/x",
  "/\n/evil.example/x",
  "/\r\n/evil.example/x",
  "\t//evil.example/x",
  "/x\t",
  // Absolute URLs, schemes, and things that are no path at all.
  "https://evil.example/x",
  "http:/evil.example/x",
  "http://localhost:3000/dashboard",
  " //evil.example/x",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "evil.example",
  "",
];

/** Paths on this origin: kept, normalised the way the browser would. */
export const SAFE_RETURN_TO: readonly (readonly [string, string])[] = [
  ["/dashboard/inbox?status=open#top", "/dashboard/inbox?status=open#top"],
  ["/api/me?x=1", "/api/me?x=1"],
  ["/dashboard/./inbox", "/dashboard/inbox"],
  ["/a/../dashboard", "/dashboard"],
  ["/@evil.example", "/@evil.example"],
  ["/dashboard?next=//evil.example", "/dashboard?next=//evil.example"],
];

/** Every `return_to` with where sign-in must send the browser. */
export const RETURN_TO_TABLE: readonly (readonly [string, string])[] = [...HOSTILE_RETURN_TO.map((raw) => [raw, "/dashboard"] as const), ...SAFE_RETURN_TO];

/** The hidden `return_to` value of a rendered sign-in form (values in the table need no unescaping). */
export function formReturnTo(page: string): string | undefined {
  return /name="return_to" value="([^"]*)"/.exec(page)?.[1];
}
