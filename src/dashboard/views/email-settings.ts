// Settings → Email: the org's support address (its alias editable with org:manage, shown to the
// others), drawn in the settings pages' scaffold (views/settings-section.ts), and the member's own
// choice of email when a customer writes.
import { type Html, html } from "../../html/html.ts";
import { field, type FieldErrors, type FormValues, select, submit } from "../kit/fields.ts";
import type { Viewer } from "../shell.ts";
import { SettingsSection } from "./settings-section.ts";

export const EMAIL_SETTINGS_PATH = "/dashboard/settings/email";

export interface EmailSettingsProps {
  /** Who looks: the settings nav shows the sections they may open. */
  viewer: Pick<Viewer, "can">;
  settings: { support_alias: string | null; support_address: string | null; inbound_enabled: boolean };
  /** The domain aliases are under (INBOUND_EMAIL_DOMAIN), if set. */
  domain: string | null;
  /** The member's notification choice, and the choices with their labels. */
  mode: string;
  modes: readonly { value: string; label: string }[];
  /** org:manage: may change the alias. */
  manage: boolean;
  values: FormValues;
  errors: FieldErrors;
}

function AliasForm({ settings, domain, values: v, errors: e }: EmailSettingsProps): Html {
  const rules = "Lower-case letters, digits, dots, hyphens, underscores. Empty removes it.";
  const hint = `Email to <alias>@${domain ?? "INBOUND_EMAIL_DOMAIN"} opens a ticket. ${rules}`;
  return html`<form method="post" action="${EMAIL_SETTINGS_PATH}/alias" novalidate>
${field({ name: "support_alias", label: "Support alias", value: v.support_alias ?? settings.support_alias ?? "", error: e.support_alias, maxLength: 64, hint })}
<div class="actions">${submit("Save alias", { busy: "Saving…" })}</div>
</form>`;
}

function Alias(p: EmailSettingsProps): Html {
  if (p.manage) return AliasForm(p);
  const address = p.settings.support_address;
  return html`<p>${address ? html`Customers write to <strong>${address}</strong>.` : "No support alias is set."}</p>`;
}

const STILL_EMAILED = html`replies are still emailed.`;
const NO_RELAY = html`The operator has not configured INBOUND_EMAIL_DOMAIN with a listener or a relay; ${STILL_EMAILED}`;
const INBOUND_OFF = html`<span class="badge warn">inbound mail off</span> ${NO_RELAY}`;
const AT_MOST = html`At most one email per ticket every 10 minutes.`;
const NOTIFY_WHEN = html`When a customer writes on a ticket assigned to you — or on an unassigned ticket, if you manage the inbox. ${AT_MOST}`;

export function EmailSettings(p: EmailSettingsProps): Html {
  const { settings, values: v, errors: e } = p;
  const address = SettingsSection({
    viewer: p.viewer,
    current: "email",
    id: "alias-h",
    title: "Support address",
    errors: e,
    heading: "Email",
    content: html`${settings.inbound_enabled ? "" : html`<p class="muted">${INBOUND_OFF}</p>`}
${settings.support_address ? html`<p class="muted">Current address: <code>${settings.support_address}</code></p>` : ""}
${Alias(p)}`,
  });
  return html`${address}
<section class="panel" aria-labelledby="notify-h"><h2 id="notify-h">Your notifications</h2>
<p class="muted">${NOTIFY_WHEN}</p>
<form method="post" action="${EMAIL_SETTINGS_PATH}/notifications" novalidate>
${select({ name: "mode", label: "Email when a customer writes", value: v.mode ?? p.mode, error: e.mode, options: [...p.modes] })}
<div class="actions">${submit("Save", { busy: "Saving…" })}</div>
</form>
</section>`;
}
