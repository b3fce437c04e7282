// The scaffolding every single-purpose settings page repeats (business hours, translation, help
// centre, languages): the form's error summary, the "Settings" heading, the sections' navigation
// with this one current, and the section's panel with its heading. A page passes what is its own
// (the panel's content); the email and account pages could use the same piece (their heading
// differs: `heading`).
import { type Html, html } from "../../html/html.ts";
import { errorSummary, type FieldErrors } from "../kit/fields.ts";
import type { Viewer } from "../shell.ts";
import { type SettingsSectionKey, settingsNav } from "./settings-nav.ts";

export interface SettingsSectionProps {
  viewer: Pick<Viewer, "can">;
  /** The nav entry marked current. */
  current: SettingsSectionKey;
  /** The panel's heading and its id (the panel is labelled by it). */
  id: string;
  title: string;
  /** The refused form's errors, summed up above the page. */
  errors?: FieldErrors;
  /** The page's h1 (default "Settings"). */
  heading?: string;
  /** The panel's content, after its heading. */
  content: Html;
}

export function SettingsSection(p: SettingsSectionProps): Html {
  return html`${errorSummary(p.errors ?? {})}<h1>${p.heading ?? "Settings"}</h1>
${settingsNav(p.viewer, p.current)}
<section class="panel" aria-labelledby="${p.id}"><h2 id="${p.id}">${p.title}</h2>
${p.content}
</section>`;
}
