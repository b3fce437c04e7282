// Opaque bearer secrets: 256 random bits, base64url after a type prefix (`svc_ses_…`, later
// `svc_at_…` etc.). Only their SHA-256 is stored; a lookup hashes what was presented and finds the
// row by that hash, so the database never holds anything that can be replayed.
import { randomBytes, timingSafeEqual } from "node:crypto";

export function mintToken(prefix: string): string {
  return prefix + randomBytes(32).toString("base64url");
}

export function sha256Hex(value: string): string {
  return new Bun.CryptoHasher("sha256").update(value).digest("hex");
}

/** Constant-time comparison of two strings (different lengths compare unequal without early exit on content). */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new Bun.CryptoHasher("sha256").update(a).digest();
  const y = new Bun.CryptoHasher("sha256").update(b).digest();
  return timingSafeEqual(x, y) && a.length === b.length;
}
