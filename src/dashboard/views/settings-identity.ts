// Identity verification: on or off, the secret just rotated (shown on that answer only), until
// when the previous secret still verifies, and the buttons switching, rotating and clearing.
import { type Html, html } from "../../html/html.ts";
import type { identityView } from "../../orgs/widget-access.ts";
import { actionButton } from "../kit/fields.ts";
import { when } from "../kit/table.ts";

export interface IdentityProps {
  identity: Awaited<ReturnType<typeof identityView>>;
  /** The secret just rotated: shown on this answer only. */
  secret?: string;
}

function newSecret(secret: string): Html {
  return html`<div class="flash ok" role="status"><p><strong>New identity secret, shown this once.</strong> \
Store it in your backend now; the previous secret keeps verifying for 24 hours, unless you stop it sooner.</p>\
<label for="new-secret">Identity secret</label><input id="new-secret" type="text" readonly value="${secret}">\
<div class="actions"><button type="button" class="secondary" data-copy="new-secret" hidden>Copy secret</button></div></div>`;
}

export function IdentityVerification(p: IdentityProps): Html {
  const { identity } = p;
  const state = identity.enabled
    ? html`<span class="badge ok">on</span> The widget accepts a signed-in customer only with a <code>user_token</code> signed with the secret.`
    : html`<span class="badge warn">off</span> Anyone can claim a <code>user_id</code> in the widget; switch this on before showing customer data.`;
  const previous = identity.previous_secret_expires_at
    ? html`<p class="hint" id="previous-secret">The previous secret also verifies until ${when(identity.previous_secret_expires_at)}, then it is refused.</p>`
    : "";
  const toggle = actionButton("/dashboard/settings/identity", identity.enabled ? "Switch off" : "Switch on", {
    kind: identity.enabled ? "danger" : undefined,
    hidden: { enabled: identity.enabled ? "off" : "on" },
  });
  const rotate = actionButton("/dashboard/settings/identity/rotate", "Rotate the secret", {
    confirm: "Make a new secret? The current one keeps verifying for 24 hours, unless you stop it sooner.",
  });
  const clear = identity.has_previous_secret
    ? actionButton("/dashboard/settings/identity/clear-previous", "Stop accepting the previous secret", { kind: "danger" })
    : "";
  return html`<section class="panel" aria-labelledby="identity-h"><h2 id="identity-h">Identity verification</h2>
<p>${state}</p>
${p.secret ? newSecret(p.secret) : ""}
${previous}
<div class="actions">${toggle}${rotate}${clear}</div>
</section>`;
}
