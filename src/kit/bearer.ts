// RFC 6750 section 2.1: `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 9110 section 11.1).

/** The token of a Bearer Authorization header, or null when there is none. */
export function bearerToken(authorization: string | null | undefined): string | null {
  if (!authorization) return null;
  return /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] ?? null;
}
