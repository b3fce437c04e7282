// The help centre's settings page: where it is public (or its preview while it is off), its custom
// domain with the TXT record to add and a button checking it, and the form: published or not, its
// address, the domain, the public tags (one a line, in the order their collections show), the footer.
import { type Html, html } from "../../html/html.ts";
import type { helpCentreView } from "../../helpcentre/settings.ts";
import { actionButton, checkbox, type FieldErrors, field, type FormValues, submit, textarea } from "../kit/fields.ts";
import type { Viewer } from "../shell.ts";
import { SettingsSection } from "./settings-section.ts";

export interface HelpCentreSettingsProps {
  viewer: Pick<Viewer, "can">;
  path: string;
  preview: string;
  baseUrl: string;
  /** The saved settings, or null before the first save. */
  view: ReturnType<typeof helpCentreView> | null;
  /** Where the public site is (the verified domain, else under /help/). */
  publicUrl: string | null;
  /** The address the form offers (the saved one, else one made from the org's name). */
  slug: string;
  limits: { slug: number; domain: number; collections: number; footer: number };
  values: FormValues;
  errors: FieldErrors;
}

function domainState(p: HelpCentreSettingsProps): Html | "" {
  const view = p.view;
  if (!view?.custom_domain) return "";
  if (view.domain_verified) return html`<p><span class="badge ok">verified</span> ${view.custom_domain} serves the help centre.</p>`;
  const record = view.domain_record!;
  return html`<div class="notice"><p><span class="badge warn">not verified</span> Add this DNS record, point the name at this service, then check it. \
The domain is not served until then.</p>
<dl><dt>Name</dt><dd><code>${record.name}</code></dd><dt>Type</dt><dd>TXT</dd><dt>Value</dt><dd><code>${record.value}</code></dd></dl>
${actionButton(`${p.path}/verify`, "Check the DNS record", { kind: "secondary" })}</div>`;
}

function helpForm(p: HelpCentreSettingsProps): Html {
  const { view, values: v, errors: e, limits } = p;
  return html`<form method="post" action="${p.path}" novalidate>
${checkbox({ name: "enabled", label: "Publish the help centre", checked: v.enabled !== undefined ? v.enabled === "on" : (view?.enabled ?? false) })}
${field({
  name: "slug",
  label: "Address",
  value: p.slug,
  error: e.slug,
  maxLength: limits.slug,
  hint: `The help centre is at ${p.baseUrl}/help/<address>/.`,
})}
${field({
  name: "custom_domain",
  label: "Custom domain (optional)",
  value: v.custom_domain ?? view?.custom_domain ?? "",
  error: e.custom_domain,
  maxLength: limits.domain,
  placeholder: "help.example.com",
})}
${textarea({
  name: "collections",
  label: "Public tags",
  value: v.collections ?? (view?.collections ?? []).join("\n"),
  error: e.collections,
  rows: 5,
  hint: `One tag a line, at most ${limits.collections}: each is a collection, shown in this order. An article is public when it carries one of them.`,
})}
${textarea({ name: "footer", label: "Footer", value: v.footer ?? view?.footer ?? "", error: e.footer, rows: 2, hint: `At most ${limits.footer} characters.` })}
<div class="actions">${submit("Save help centre")}</div>
</form>`;
}

export function HelpCentreSettingsPage(p: HelpCentreSettingsProps) {
  const content = html`<p class="muted">Your published articles carrying a public tag, on the web and in the widget. \
Articles tagged <code>internal</code> and drafts are never shown.</p>
${p.publicUrl && p.view?.enabled ? html`<p>Public at <a href="${p.publicUrl}">${p.publicUrl}</a>.</p>` : ""}
${p.view ? html`<p><a href="${p.preview}/">Preview the help centre</a></p>` : ""}
${domainState(p)}
${helpForm(p)}`;
  return SettingsSection({ viewer: p.viewer, current: "help-centre", id: "help-h", title: "Help centre", errors: p.errors, content });
}
