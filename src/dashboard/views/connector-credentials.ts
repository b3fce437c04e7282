// The credentials fieldset of the connect and refresh forms: the authentication method, and one
// password field per credential, shown by /assets/dashboard.js for the method chosen.
import { type Html, html } from "../../html/html.ts";
import { field, type FieldErrors, type FormValues, select } from "../kit/fields.ts";

const CREDENTIAL_LABELS: Record<string, string> = {
  token: "Bearer token",
  access_token: "Access token",
  refresh_token: "Refresh token",
  client_id: "Client id",
  client_secret: "Client secret",
};

export interface CredentialFieldsProps {
  values: FormValues;
  errors: FieldErrors;
  hint: string;
  /** The authentication methods a connector may use (connectors/rules.ts). */
  methods: readonly string[];
}

const methodLabel = (m: string) => (m === "none" ? "None" : m === "bearer" ? "Bearer token" : "OAuth 2 tokens");

function credentialField(name: string, errors: FieldErrors): Html {
  const label = `${CREDENTIAL_LABELS[name]}${name === "token" ? " (bearer)" : " (OAuth 2)"}`;
  return html`<div data-auth="${name === "token" ? "bearer" : "oauth2"}">${field({
    name: `cred_${name}`,
    label,
    type: "password",
    value: "",
    error: errors[`cred_${name}`],
  })}</div>`;
}

export function CredentialFields({ values: v, errors: e, hint, methods }: CredentialFieldsProps): Html {
  const options = methods.map((m) => ({ value: m, label: methodLabel(m) }));
  return html`<fieldset><legend>Credentials</legend><p class="hint">${hint}</p>
${select({ name: "auth_method", label: "Authentication", value: v.auth_method ?? "none", error: e.auth_method, options })}
${Object.keys(CREDENTIAL_LABELS).map((name) => credentialField(name, e))}
</fieldset>`;
}
