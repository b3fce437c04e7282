// Checking an email and password. Two rules beyond "is it right":
// - the same work whether or not the account exists (a missing account still costs one argon2
//   verification, against a constant hash of a forgotten password), so timing does not reveal who has an account;
// - failures are limited per account and per client IP (windows shared by every process: deps.limiter).
//   An attempt takes a slot before the password is checked, so parallel guesses cannot slip past
//   the limit; a successful sign-in gives its slot back.
import { sha256Hex } from "../crypto/tokens.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { WindowLimit } from "../ratelimit/leased.ts";
import { accountByEmail } from "../tenancy/members.ts";

export const SIGNIN_LIMITS = {
  /** Failed sign-ins per account per 15 minutes. */
  perAccount: { limit: 5, windowSeconds: 15 * 60 } satisfies WindowLimit,
  /** Failed sign-ins per client IP per 15 minutes. */
  perIp: { limit: 20, windowSeconds: 15 * 60 } satisfies WindowLimit,
};

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class SignInFailed extends AppError {
  constructor() {
    super(401, "invalid_credentials", "Email or password is incorrect.");
  }
}

export async function checkPassword(deps: Pick<Deps, "db" | "limiter" | "now" | "passwords">, input: { email: string; password: string; ip: string }) {
  const email = normaliseEmail(input.email);
  const now = deps.now();
  const keys = [
    { key: `signin:account:${sha256Hex(email)}`, limit: SIGNIN_LIMITS.perAccount },
    { key: `signin:ip:${input.ip}`, limit: SIGNIN_LIMITS.perIp },
  ];
  const taken = await Promise.all(keys.map((k) => deps.limiter.take(k.key, k.limit, now)));
  const blocked = taken.filter((t) => !t.allowed);
  if (blocked.length > 0) {
    throw AppError.tooManyRequests(Math.max(...blocked.map((t) => t.retryAfter)), "Too many failed sign-in attempts. Try again later.");
  }
  const member = await accountByEmail(deps.db, email);
  // An unknown account is checked against a hash with the same parameters: the same work (deps.passwords).
  const ok = await deps.passwords.verify(input.password, member?.passwordHash ?? (await deps.passwords.dummy()));
  if (!member || !ok) throw new SignInFailed();
  await Promise.all(keys.map((k) => deps.limiter.refund(k.key, k.limit, now)));
  return { id: member.id, email: member.email, name: member.name };
}
