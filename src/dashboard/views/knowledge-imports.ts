// The knowledge base's two import forms: a web page (fetched through the outbound guard) and a
// markdown file (its text read by the page's script, or pasted without it). A refused import shows
// its errors in its own form only.
import { type Html, html } from "../../html/html.ts";
import { errorSummary, type FieldErrors, field, type FormValues, submit, textarea } from "../kit/fields.ts";

export interface KnowledgeImportsProps {
  /** The form that was refused, with its values and errors. */
  refused: { which: "url" | "file"; values: FormValues; errors: FieldErrors } | null;
  extensions: readonly string[];
}

function urlForm(p: KnowledgeImportsProps): Html {
  const mine = p.refused?.which === "url";
  const iv = p.refused?.values ?? {};
  const ie = p.refused?.errors ?? {};
  const url = field({
    name: "url",
    label: "Page address",
    type: "url",
    value: iv.url,
    error: mine ? ie.url : undefined,
    required: true,
    hint: "https only; fetched once, at most 2 MiB, 15 seconds.",
  });
  const title = field({
    name: "title",
    label: "Title (optional)",
    value: mine ? iv.title : "",
    error: mine ? ie.title : undefined,
    hint: "Default: the page's title.",
  });
  return html`<section class="panel" aria-labelledby="import-url"><h2 id="import-url">Import a web page</h2>
${mine ? errorSummary(ie) : ""}
<form method="post" action="/dashboard/knowledge/import-url" novalidate>
${url}
${title}
<div class="actions">${submit("Import page", { busy: "Importing…" })}</div>
</form></section>`;
}

function fileForm(p: KnowledgeImportsProps): Html {
  const mine = p.refused?.which === "file";
  const iv = p.refused?.values ?? {};
  const ie = p.refused?.errors ?? {};
  const error = mine && ie.file ? html`<p class="field-error" id="f-file-error">${ie.file}</p>` : "";
  const content = textarea({
    name: "content",
    label: "Its text",
    value: mine ? iv.content : "",
    error: mine ? ie.content : undefined,
    rows: 4,
    hint: "Filled from the chosen file; without scripts, paste the file's text here.",
  });
  return html`<section class="panel" aria-labelledby="import-file"><h2 id="import-file">Import a markdown file</h2>
${mine ? errorSummary(ie) : ""}
<form method="post" action="/dashboard/knowledge/import-file" novalidate data-file-import>
<div class="field${ie.file ? " has-error" : ""}"><label for="f-file">Markdown file</label>\
<input type="file" id="f-file" name="file_name" accept="${p.extensions.join(",")}" aria-describedby="f-file-hint${ie.file ? " f-file-error" : ""}">\
<p class="hint" id="f-file-hint">${p.extensions.join(", ")}; title from its first heading, else its name.</p>${error}</div>
${content}
<div class="actions">${submit("Import file", { busy: "Importing…" })}</div>
</form></section>`;
}

export function KnowledgeImports(p: KnowledgeImportsProps): Html {
  return html`<div class="grid2">
${urlForm(p)}
${fileForm(p)}
</div>`;
}
