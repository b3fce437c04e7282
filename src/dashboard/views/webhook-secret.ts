// A webhook endpoint's signing secret, shown once in the answer to the request that made it (a new
// endpoint, a rotation), with what to do with it.
import { type Html, html } from "../../html/html.ts";

export function WebhookSecret(secret: string): Html {
  return html`<div class="flash ok" role="status"><p><strong>Signing secret, shown this once.</strong> \
Receivers verify <code>webhook-signature</code> with it (Standard Webhooks); store it now.</p>\
<label for="webhook-secret">Signing secret</label><input id="webhook-secret" type="text" readonly value="${secret}">\
<div class="actions"><button type="button" class="secondary" data-copy="webhook-secret" hidden>Copy secret</button></div></div>`;
}
