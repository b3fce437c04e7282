// The knowledge sources: the list (each source's kind, status with its progress or the reason of a
// failure, counts, last and next sync) with the forms adding one; a source's page with the pages
// it could not import or kept because they were edited locally, "Sync now" and "Delete…"; and
// what deleting one does, said on its confirmation page.
import { type Html, html } from "../../html/html.ts";
import type { sourceView } from "../../sources/model.ts";
import type { sourceProblems } from "../../sources/service.ts";
import { actionButton, type FieldErrors, type FormValues } from "../kit/fields.ts";
import { badge, listTable, when } from "../kit/table.ts";
import { FilesForm, HelpCentreSourceForm, type SourceLimits, WebsiteForm } from "./knowledge-source-forms.ts";

type View = ReturnType<typeof sourceView>;
type Problem = Awaited<ReturnType<typeof sourceProblems>>[number];

const KIND_LABELS: Record<string, string> = { website: "Website", zendesk: "Zendesk Guide", intercom: "Intercom Articles" };

function statusOf(s: View): Html {
  const tone = s.status === "ready" ? "ok" : s.status === "failed" ? "danger" : s.status === "syncing" ? "accent" : "";
  const progress =
    s.status === "syncing" && s.progress
      ? html`<div class="hint" role="status" data-sync-progress="${s.id}">${s.progress.done} of ${s.progress.found} pages done</div>`
      : "";
  return html`${badge(s.status, tone)}${progress}${s.reason ? html`<div class="hint">${s.reason}</div>` : ""}`;
}

function countsOf(s: View): Html {
  const c = s.counts;
  return html`<span class="hint">${c.found} found · ${c.imported} imported · ${c.updated} updated · ${c.unchanged} unchanged · \
${c.failed} failed · ${c.removed} removed${c.conflicts ? html` · <strong>${c.conflicts} edited locally</strong>` : ""}</span>`;
}

const addressOf = (s: View) => s.start_url ?? s.base_url ?? "";

export interface SourceListProps {
  sources: View[];
  manage: boolean;
  limits: SourceLimits;
  files: { files: number; types: readonly string[] };
  /** Each form's refused values and errors (empty when it was not the one refused). */
  website: { values: FormValues; errors: FieldErrors };
  helpCentre: { values: FormValues; errors: FieldErrors };
  filesErrors: FieldErrors;
}

function sourceRow(s: View): Html {
  return html`<tr><td><a href="/dashboard/knowledge/sources/${s.id}">${s.name}</a><div class="hint">${KIND_LABELS[s.kind]} · ${addressOf(s)}</div></td>\
<td>${statusOf(s)}</td><td>${countsOf(s)}</td><td>${when(s.last_sync_at)}</td><td>${when(s.next_sync_at)}</td></tr>`;
}

export function SourceList(p: SourceListProps): Html {
  const forms = p.manage
    ? html`${WebsiteForm(p.website.values, p.website.errors, p.limits)}
${HelpCentreSourceForm(p.helpCentre.values, p.helpCentre.errors, p.limits)}
${FilesForm(p.filesErrors, p.files)}`
    : "";
  return html`<p><a href="/dashboard/knowledge">← Knowledge base</a></p>
<h1>Knowledge sources</h1>
<p class="muted">Websites and help centres whose pages become documents, kept in sync: changed pages are updated, removed pages removed. \
A document someone edited here is kept and shown as edited locally.</p>
${listTable({
  caption: "Knowledge sources",
  columns: ["Source", "Status", "Pages", "Last sync", "Next sync"],
  rows: p.sources,
  row: sourceRow,
  empty: p.sources.length === 0 ? "No sources yet." : null,
})}
${forms}`;
}

export interface SourceDetailProps {
  source: View;
  problems: Problem[];
  manage: boolean;
}

export function SourceDetail(p: SourceDetailProps): Html {
  const s = p.source;
  const sync = s.status === "syncing" ? "" : actionButton(`/dashboard/knowledge/sources/${s.id}/sync`, "Sync now", { busy: "Starting…" });
  const actions = p.manage
    ? html`<div class="actions">${sync}<a class="button secondary" href="/dashboard/knowledge/sources/${s.id}/delete">Delete…</a></div>`
    : "";
  const hours = Math.round(s.interval_seconds / 3600);
  return html`<p><a href="/dashboard/knowledge/sources">← Knowledge sources</a></p>
<h1>${s.name}</h1>
<p class="muted">${KIND_LABELS[s.kind]} · ${addressOf(s)} · synced every ${hours} h · last sync ${when(s.last_sync_at)} · next ${when(s.next_sync_at)}</p>
<p>${statusOf(s)}</p>
<p>${countsOf(s)}</p>
<h2>Pages to look at</h2>
${listTable({
  caption: "Pages the last syncs could not import, or kept because they were edited locally",
  columns: ["Page", "Why"],
  rows: p.problems,
  row: (x) => html`<tr><td>${x.doc_id ? html`<a href="/dashboard/knowledge/${x.doc_id}">${x.url}</a>` : x.url}</td><td>${x.reason}</td></tr>`,
  empty: p.problems.length === 0 ? "None." : null,
})}
${actions}`;
}

/** What deleting a source does, on its confirmation page. */
export function SourceDeletion(): Html {
  return html`<p>The source stops syncing, and <strong>every document it brought is deleted</strong> with it, including the ones edited here. \
Agents stop answering from them at once.</p>`;
}
