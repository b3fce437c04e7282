// Reading a cookie from a request (RFC 6265 section 5.4: `name=value` pairs separated by `; `).
// Values are percent-decoded, as we encode them. A value that cannot be decoded is no value, and
// the search goes on: a sibling subdomain can plant a cookie of the same name, sent before ours,
// and a malformed one must neither fail the request nor hide the real one.

/** The first decodable value of the cookie `name`, or undefined. */
export function cookieValue(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key !== name) continue;
    try {
      return decodeURIComponent(value.join("="));
    } catch {
      // Not percent-encoded text: not ours; a later cookie of the same name may be.
    }
  }
  return undefined;
}
