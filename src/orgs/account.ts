// A member's own account (README "Accounts"): the display name and avatar shown with their replies
// (the widget, and the email From "<name> at <org>"), and their password. Changing the password
// needs the current one (checked with sign-in's limits) and signs out every other session.
import { deleteOtherSessions } from "../auth/sessions.ts";
import { checkPassword } from "../auth/signin.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { normalizeLanguage } from "../kit/language.ts";
import { memberById, memberLanguage, updateMember } from "../tenancy/members.ts";
import { checkNewPassword } from "./password-reset.ts";

export const ACCOUNT_LIMITS = { name: 200, avatarUrl: 2048 } as const;

/**
 * The languages a member may read in (ISO 639-1): customer messages in another language are shown
 * translated, and replies can be sent in the customer's (README "Translation"). Those the
 * translators this service speaks to (LibreTranslate, DeepL, a model) commonly share.
 */
export const MEMBER_LANGUAGES = [
  "en",
  "es",
  "de",
  "fr",
  "pt",
  "it",
  "nl",
  "ja",
  "zh",
  "ar",
  "ko",
  "ru",
  "pl",
  "tr",
  "sv",
  "da",
  "fi",
  "nb",
  "cs",
  "uk",
  "el",
  "he",
  "hi",
  "id",
  "vi",
  "th",
  "ro",
  "hu",
] as const;

export interface Profile {
  name: string;
  avatar_url: string | null;
  /** The language the member reads; null: English. */
  language: string | null;
}

/** An avatar address: https only, no credentials, at most ACCOUNT_LIMITS.avatarUrl characters; null for none. */
export function avatarProblem(raw: string): string | null {
  if (raw.length > ACCOUNT_LIMITS.avatarUrl) return `must be at most ${ACCOUNT_LIMITS.avatarUrl} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an https:// address";
  }
  if (url.protocol !== "https:") return "must be an https:// address";
  if (url.username || url.password) return "must not carry a user name or password";
  return null;
}

export async function getProfile(deps: Pick<Deps, "db">, memberId: string): Promise<Profile & { email: string }> {
  const row = await memberById(deps.db, memberId);
  if (!row) throw AppError.notFound("No such member.");
  return { name: row.name, avatar_url: row.avatarUrl, language: await memberLanguage(deps.db, memberId), email: row.email };
}

/** Sets the display name (trimmed; empty: replies are signed by the team) and the avatar. 400 with details per field. */
export async function updateProfile(
  deps: Pick<Deps, "db" | "now">,
  memberId: string,
  input: { name: string; avatar_url: string | null /** Absent: unchanged; null: English. */; language?: string | null },
): Promise<Omit<Profile, "language">> {
  const name = input.name.trim().replace(/\s+/g, " ");
  const avatar = input.avatar_url?.trim() || null;
  const problems: { path: string; message: string }[] = [];
  if (name.length > ACCOUNT_LIMITS.name) problems.push({ path: "/name", message: `must be at most ${ACCOUNT_LIMITS.name} characters` });
  if (/[\u0000-\u001f\u007f]/.test(name)) problems.push({ path: "/name", message: "must not contain control characters" });
  const avatarError = avatar ? avatarProblem(avatar) : null;
  if (avatarError) problems.push({ path: "/avatar_url", message: avatarError });
  const language = input.language == null ? input.language : normalizeLanguage(input.language);
  if (language === null && input.language != null) problems.push({ path: "/language", message: "must be a language code such as en or es" });
  else if (language != null && !(MEMBER_LANGUAGES as readonly string[]).includes(language))
    problems.push({ path: "/language", message: `must be one of ${MEMBER_LANGUAGES.join(", ")}` });
  if (problems.length > 0) throw AppError.badRequest("The profile is not valid.", problems);
  await updateMember(deps.db, memberId, { name, avatarUrl: avatar, ...(language !== undefined ? { language } : {}), updatedAt: deps.now() });
  return { name, avatar_url: avatar };
}

/**
 * Changes the password of the member signed in with `sessionId`: the current password is checked
 * as at sign-in (401, limited), the new one as at sign-up (400); every other session ends.
 * Returns how many sessions were signed out.
 */
export async function changePassword(
  deps: Pick<Deps, "db" | "limiter" | "now" | "passwords">,
  input: { memberId: string; sessionId: string; current: string; next: string; ip: string },
): Promise<{ signed_out: number }> {
  checkNewPassword(input.next);
  const member = await memberById(deps.db, input.memberId);
  if (!member) throw AppError.notFound("No such member.");
  const checked = await checkPassword(deps, { email: member.email, password: input.current, ip: input.ip }).catch((error) => {
    if (error instanceof AppError && error.status === 401) throw new AppError(401, "invalid_credentials", "The current password is incorrect.");
    throw error;
  });
  if (checked.id !== input.memberId) throw new AppError(401, "invalid_credentials", "The current password is incorrect.");
  const passwordHash = await deps.passwords.hash(input.next);
  await updateMember(deps.db, input.memberId, { passwordHash, updatedAt: deps.now() });
  return { signed_out: await deleteOtherSessions(deps, input.memberId, input.sessionId) };
}
