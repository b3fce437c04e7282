// The consent page and the authorization error page.
import { html, PAGE_CSP, page } from "../html/html.ts";
import type { ConsentView } from "./authorize.ts";
import { formActionSource } from "./checks/redirect-uri.ts";
import { SCOPES, type Scope } from "./scopes.ts";

function destination(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.host || `${url.protocol}//`;
}

export function consentPage(view: ConsentView): Response {
  const single = view.orgs.length === 1 ? view.orgs[0]! : undefined;
  return page(
    "Allow access",
    html`<h1>Allow ${view.clientName} to use svc-agents?</h1>
${view.clientHost ? html`<p>This application is published by <strong>${view.clientHost}</strong> (its name is its own claim; the address is checked).</p>` : ""}
<p class="muted">After you answer, you will be sent back to <strong>${destination(view.redirectUri)}</strong>.</p>
<form method="post" action="/api/mcp/oauth/consent">
<input type="hidden" name="request_id" value="${view.requestId}">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
${
  single
    ? html`<p>Organisation: <strong>${single.name}</strong></p><input type="hidden" name="org_id" value="${single.id}">`
    : html`<label for="org_id">Organisation</label>
<select id="org_id" name="org_id" required>${view.orgs.map((o) => html`<option value="${o.id}">${o.name}</option>`)}</select>`
}
<p>${view.clientName} will be able to:</p>
<ul>${view.scopes.map((s) => html`<li>${SCOPES[s as Scope] ?? s}</li>`)}</ul>
<div class="actions"><button type="submit" name="decision" value="deny" class="secondary">Deny</button>\
<button type="submit" name="decision" value="allow">Allow</button></div>
</form>`,
    // form-action also governs where the form's redirect may go: allow the client's redirect URI.
    { csp: PAGE_CSP.replace("form-action 'self'", `form-action 'self' ${formActionSource(view.redirectUri)}`) },
  );
}

export function oauthErrorPage(status: number, title: string, message: string, headers?: Record<string, string>): Response {
  return page(title, html`<h1>${title}</h1><p class="error" role="alert">${message}</p>`, { status, headers });
}
