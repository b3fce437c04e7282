// The sign-in page: a plain form (inputs `email` and `password`), labelled, keyboard-usable, no script.
import { html, page } from "../html/html.ts";

export function signInPage(options: { returnTo: string; email?: string; error?: string; notice?: string; status?: number; headers?: Record<string, string> }) {
  return page(
    "Sign in",
    html`<h1>Sign in to svc-agents</h1>
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ""}
${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ""}
<form method="post" action="/signin">
<input type="hidden" name="return_to" value="${options.returnTo}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${options.email ?? ""}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>
<p><a href="/forgot-password">Forgot your password?</a></p>`,
    { status: options.status, headers: options.headers },
  );
}
