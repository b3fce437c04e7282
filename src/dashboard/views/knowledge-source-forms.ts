// The forms adding knowledge sources: a website (start page or sitemap, page cap, paths to include
// and exclude), a help centre (Zendesk Guide or Intercom Articles), and files uploaded as documents
// (read by the page's script and sent as fields). Each shows its own refused values and errors.
import { type Html, html } from "../../html/html.ts";
import { errorSummary, type FieldErrors, field, type FormValues, select, submit, textarea } from "../kit/fields.ts";

export interface SourceLimits {
  name: number;
  locale: number;
  defaultPages: number;
  maxPages: number;
}

export function WebsiteForm(v: FormValues, e: FieldErrors, limits: SourceLimits): Html {
  const startUrl = field({
    name: "start_url",
    label: "Start page or sitemap",
    type: "url",
    value: v.start_url,
    error: e.start_url,
    required: true,
    hint: "A page whose links are followed, or a sitemap.xml (an index and gzip are read too). Only this host is crawled; robots.txt is respected.",
  });
  const pages = field({
    name: "max_pages",
    label: "Page cap",
    type: "number",
    value: v.max_pages ?? String(limits.defaultPages),
    error: e.max_pages,
    hint: `At most ${limits.maxPages}.`,
  });
  return html`<section class="panel" aria-labelledby="add-h"><h2 id="add-h">Add a website</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/knowledge/sources" novalidate>
<div class="grid2">
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: limits.name })}
${pages}
</div>
${startUrl}
<div class="grid2">
${textarea({
  name: "include",
  label: "Only paths matching",
  value: v.include,
  error: e.include,
  rows: 3,
  hint: "One per line, such as /docs/*. Empty: every path.",
})}
${textarea({ name: "exclude", label: "Never paths matching", value: v.exclude, error: e.exclude, rows: 3, hint: "One per line, such as /blog/*." })}
</div>
<div class="actions">${submit("Add and sync", { busy: "Adding…" })}</div>
</form></section>`;
}

export function HelpCentreSourceForm(v: FormValues, e: FieldErrors, limits: SourceLimits): Html {
  const kind = select({
    name: "hc_kind",
    label: "Help centre",
    value: v.hc_kind ?? "zendesk",
    error: e.hc_kind,
    options: [
      { value: "zendesk", label: "Zendesk Guide (public articles)" },
      { value: "intercom", label: "Intercom Articles (access token)" },
    ],
  });
  const address = field({
    name: "hc_base_url",
    label: "Address",
    type: "url",
    value: v.hc_base_url,
    error: e.hc_base_url,
    required: true,
    hint: "Zendesk: https://yours.zendesk.com. Intercom: https://api.intercom.io (or your region's API).",
  });
  const token = field({
    name: "hc_token",
    label: "Access token (Intercom)",
    type: "password",
    value: "",
    error: e.hc_token,
    hint: "Stored encrypted, never shown again.",
  });
  return html`<section class="panel" aria-labelledby="add-hc-h"><h2 id="add-hc-h">Add a help centre</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/knowledge/sources/help-centre" novalidate>
<div class="grid2">
${kind}
${field({ name: "hc_name", label: "Name of the help centre", value: v.hc_name, error: e.hc_name, required: true, maxLength: limits.name })}
</div>
${address}
<div class="grid2">
${field({ name: "hc_locale", label: "Locale (Zendesk)", value: v.hc_locale ?? "en-us", error: e.hc_locale, maxLength: limits.locale })}
${token}
</div>
<div class="actions">${submit("Add the help centre and sync", { busy: "Adding…" })}</div>
</form></section>`;
}

export function FilesForm(e: FieldErrors, limits: { files: number; types: readonly string[] }): Html {
  const hint = html`<p class="hint" id="f-files-hint">PDF, DOCX, HTML, Markdown, plain text or a zip of them; \
up to ${limits.files} files, 1 MiB in all from here (larger uploads: POST /api/knowledge/files). \
Each becomes a document titled from its first heading. Reading the files needs the page's script.</p>`;
  return html`<section class="panel" aria-labelledby="add-files-h"><h2 id="add-files-h">Upload files</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/knowledge/sources/files" novalidate data-file-upload><input type="hidden" name="upload" value="files">
<div class="field${e.files ? " has-error" : ""}"><label for="f-files">Files</label>\
<input type="file" id="f-files" multiple accept="${limits.types.join(",")}" aria-describedby="f-files-hint${e.files ? " f-files-error" : ""}">\
${hint}${e.files ? html`<p class="field-error" id="f-files-error">${e.files}</p>` : ""}<div data-file-fields hidden></div></div>
<div class="actions">${submit("Upload", { busy: "Uploading…" })}</div>
</form></section>`;
}
