// PKCE (RFC 7636), S256 only (OAuth 2.1 section 4.1.1 and docs/interface.md 4.4).
import { constantTimeEqual } from "../../crypto/tokens.ts";

/** RFC 7636 section 4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
export const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** BASE64URL(SHA256(verifier)) is always 43 characters. */
export const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function s256(verifier: string): string {
  return new Bun.CryptoHasher("sha256").update(verifier).digest("base64url");
}

export function verifierMatches(verifier: string, challenge: string): boolean {
  return constantTimeEqual(s256(verifier), challenge);
}
