// Redirect URIs: what may be registered (RFC 7591 section 2, RFC 8252 section 7) and whether the one an
// authorization request names is registered (exact match, except loopback ports, RFC 8252 section 7.3).
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
/** Schemes that must never receive an authorization code. */
const FORBIDDEN_SCHEMES = new Set(["javascript:", "data:", "file:", "vbscript:", "about:", "blob:", "filesystem:", "ws:", "wss:", "ftp:", "mailto:", "tel:"]);

export function isLoopback(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * Control characters, space, DEL and C1 controls, raw. RFC 3986 section 2 allows none of them in a URI,
 * and the WHATWG parser silently drops tab/CR/LF inside a URL and trims C0 and space at its ends,
 * so what was checked would differ from what is stored and later written into a Location header.
 * Percent-encoded octets (%0D%0A) are data, not controls, and stay allowed.
 */
const RAW_CONTROL = /[\x00-\x20\x7f-\x9f]/;

/** Why a redirect URI cannot be registered, or null when it can. */
export function redirectUriProblem(raw: string): string | null {
  if (raw.length > 2000) return "is longer than 2000 characters";
  if (RAW_CONTROL.test(raw)) return "must not contain spaces or control characters such as CR or LF (RFC 3986 section 2)";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not an absolute URI";
  }
  if (url.hash !== "" || raw.includes("#")) return "must not contain a fragment (RFC 6749 section 3.1.2)";
  if (url.username || url.password) return "must not contain credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:") return isLoopback(url) ? null : "must use https (http is allowed only on loopback, RFC 8252 section 7.3)";
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `must not use the ${url.protocol} scheme`;
  // RFC 8252 section 7.1: private-use URI schemes for native apps (e.g. com.example.app:/callback, cursor://…).
  return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? null : "has an invalid scheme";
}

/** Is `requested` one of the client's registered redirect URIs? */
export function redirectUriRegistered(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    return false;
  }
  if (!isLoopback(url)) return false;
  // RFC 8252 section 7.3: for loopback redirects the port is chosen at run time; match everything else.
  const portless = (u: URL) => `${u.protocol}//${u.hostname}${u.pathname}${u.search}`;
  return registered.some((r) => {
    try {
      const candidate = new URL(r);
      return isLoopback(candidate) && portless(candidate) === portless(url);
    } catch {
      return false;
    }
  });
}

/** The CSP source that lets the consent form's redirect reach this URI (form-action applies to redirects). */
export function formActionSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  if (url.protocol === "https:") return url.origin;
  if (isLoopback(url)) return `http://${url.hostname}:*`;
  return url.protocol; // private-use scheme
}
