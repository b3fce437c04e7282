// The member's own account page: the profile form (display name, avatar, language read), the
// password form, and their sessions with "sign out everywhere else".
import { type Html, html } from "../../html/html.ts";
import { actionButton, errorSummary, field, type FieldErrors, type FormValues, listTable, select, submit, when } from "../kit/index.ts";

export interface AccountProps {
  profile: { email: string; name: string; avatar_url: string | null; language: string | null };
  sessions: readonly { id: string; createdAt: Date; expiresAt: Date }[];
  /** The session looking at the page. */
  sessionId: string;
  values: FormValues;
  errors: FieldErrors;
  /** The languages a member may read in (codes). */
  languages: readonly string[];
  limits: { name: number; avatarUrl: number; passwordMin: number; passwordMax: number };
}

const languageNames = new Intl.DisplayNames(["en"], { type: "language" });
/** "es" → "Spanish (es)". */
const languageLabel = (code: string) => `${languageNames.of(code) ?? code} (${code})`;

function profileForm(p: AccountProps): Html {
  const v = p.values;
  const e = p.errors;
  return html`<section class="panel" aria-labelledby="profile-h"><h2 id="profile-h">Profile</h2>
<form method="post" action="/dashboard/account/profile">
${field({
  name: "name",
  label: "Display name",
  value: v.name ?? p.profile.name,
  error: e.name,
  maxLength: p.limits.name,
  hint: "Signs your replies in the widget and in emails (“<name> at <organisation>”). Empty: “Support team”.",
})}
${field({
  name: "avatar_url",
  label: "Avatar URL",
  type: "url",
  value: v.avatar_url ?? p.profile.avatar_url ?? "",
  error: e.avatar_url,
  maxLength: p.limits.avatarUrl,
  placeholder: "https://",
  hint: "An https:// image shown beside your replies in the widget. Optional.",
})}
${select({
  name: "language",
  label: "Language you read",
  value: v.language ?? p.profile.language ?? "en",
  error: e.language,
  options: p.languages.map((code) => ({ value: code, label: languageLabel(code) })),
  hint: "Customer messages in another language are shown translated, and your replies can be sent in the customer's (when the organisation has a translator).",
})}
<div class="actions">${submit("Save profile")}</div>
</form></section>`;
}

function passwordForm(p: AccountProps): Html {
  const e = p.errors;
  return html`<section class="panel" aria-labelledby="password-h"><h2 id="password-h">Password</h2>
<form method="post" action="/dashboard/account/password">
<input type="text" name="username" autocomplete="username" value="${p.profile.email}" hidden>
${field({
  name: "current_password",
  label: "Current password",
  type: "password",
  error: e.current_password,
  required: true,
  attrs: { autocomplete: "current-password" },
})}
${field({
  name: "new_password",
  label: "New password",
  type: "password",
  error: e.new_password,
  required: true,
  maxLength: p.limits.passwordMax,
  hint: `At least ${p.limits.passwordMin} characters. Every other session of yours is signed out.`,
  attrs: { autocomplete: "new-password", minlength: String(p.limits.passwordMin) },
})}
<div class="actions">${submit("Change password")}</div>
</form></section>`;
}

function sessionList(p: AccountProps): Html {
  const signOut =
    p.sessions.length > 1
      ? actionButton("/dashboard/account/sessions/sign-out", "Sign out everywhere else", { kind: "danger", confirm: "Sign out every other session?" })
      : html`<p class="muted">This is your only session.</p>`;
  return html`<section class="panel" aria-labelledby="sessions-h"><h2 id="sessions-h">Sessions</h2>
<p class="muted">Where you are signed in: browsers and API clients holding a session token.</p>
${listTable({
  caption: "Your sessions",
  columns: ["Signed in", "Expires", "This one?"],
  rows: p.sessions,
  row: (s) => html`<tr><td>${when(s.createdAt)}</td><td>${when(s.expiresAt)}</td><td>${s.id === p.sessionId ? "this session" : ""}</td></tr>`,
  empty: "No sessions.",
})}
${signOut}
</section>`;
}

export function Account(p: AccountProps): Html {
  return html`${errorSummary(p.errors)}<h1>Your account</h1>
<p class="muted">${p.profile.email}</p>
${profileForm(p)}
${passwordForm(p)}
${sessionList(p)}`;
}
