// Shared by the widget SDK tests: a keyed request, and user_tokens signed as an org's backend would.
import { SignJWT } from "jose";
import type { TestApp } from "../support/app.ts";

export function sdk(app: TestApp, key: string) {
  return (path: string, json?: unknown, headers: Record<string, string> = {}) =>
    app.request(path, {
      method: json === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${key}`, ...headers },
      ...(json !== undefined ? { json } : {}),
    });
}

/** An HS256 token as `jwt.sign(claims, secret, { expiresIn })` would make it. */
export async function userToken(
  secret: string,
  claims: Record<string, unknown>,
  options: { expiresInSeconds?: number; now?: Date; alg?: string; exp?: boolean } = {},
) {
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? "HS256", typ: "JWT" }).setIssuedAt(now);
  if (options.exp !== false) jwt.setExpirationTime(now + (options.expiresInSeconds ?? 300));
  return jwt.sign(new TextEncoder().encode(secret));
}

/** An unsigned token (`alg: none`), which a verifier trusting the header would accept. */
export function unsignedToken(claims: Record<string, unknown>) {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.`;
}

export async function json(res: Response): Promise<any> {
  return res.json();
}
