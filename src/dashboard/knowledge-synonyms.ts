// Dashboard: the org's synonyms for knowledge search (knowledge:view to read, knowledge:manage to
// change), one group per line, its words or two-word phrases separated by commas; saved through
// src/knowledge/synonyms.ts as PUT /api/knowledge/synonyms does, and recorded in the activity log.
import { recordActivity } from "../activity/log.ts";
import { html } from "../html/html.ts";
import { memberActor } from "../kit/actor.ts";
import { getSynonyms, putSynonyms, SYNONYM_LIMITS } from "../knowledge/synonyms.ts";
import {
  type DashboardContext,
  detailErrors,
  errorSummary,
  type FieldErrors,
  type FormValues,
  redirect,
  shellPage,
  submit,
  submitForm,
  textarea,
} from "./kit/index.ts";

const TEXT_MAX = SYNONYM_LIMITS.groups * SYNONYM_LIMITS.perGroup * (SYNONYM_LIMITS.chars + 2);

const linesOf = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) =>
      line
        .split(",")
        .map((e) => e.trim())
        .filter((e) => e !== ""),
    )
    .filter((group) => group.length > 0);

export async function synonymsPage(ctx: DashboardContext, refused?: { values: FormValues; errors: FieldErrors; status: number }): Promise<Response> {
  const manage = ctx.can("knowledge:manage");
  const saved = await getSynonyms(ctx.deps, ctx.orgId);
  const text = refused?.values.synonyms ?? saved.groups.map((g) => g.join(", ")).join("\n");
  const body = html`<p><a href="/dashboard/knowledge">← Knowledge base</a></p>
<h1>Synonyms</h1>
<p class="muted">Words your customers use for the same thing. A question using one of a group also finds articles using the others.</p>
${refused ? errorSummary(refused.errors) : ""}
<form method="post" action="/dashboard/knowledge/synonyms" novalidate>
${textarea({ name: "synonyms", label: "Groups, one per line", value: text, error: refused?.errors.synonyms, rows: 10, hint: `Words or two-word phrases separated by commas, e.g. "refund, money back". At most ${SYNONYM_LIMITS.groups} groups.` })}
${manage ? html`<div class="actions">${submit("Save synonyms", { busy: "Saving…" })}</div>` : ""}
</form>`;
  return shellPage(ctx, { title: "Synonyms", active: "knowledge", body, status: refused?.status ?? 200 });
}

export function saveSynonyms(ctx: DashboardContext, values: FormValues): Promise<Response> {
  return submitForm({
    values,
    validate: (v) => {
      const text = v.synonyms ?? "";
      return { input: linesOf(text), errors: (text.length > TEXT_MAX ? { synonyms: `The list is longer than ${TEXT_MAX} characters.` } : {}) as FieldErrors };
    },
    call: async (groups) => {
      const saved = await putSynonyms(ctx.deps, ctx.orgId, groups);
      await recordActivity(ctx.deps, {
        orgId: ctx.orgId,
        actor: memberActor(ctx.principal.member.id),
        action: "synonyms.updated",
        objectType: "org",
        objectId: ctx.orgId,
        summary: { groups: saved.groups.length },
      });
      return saved;
    },
    done: (saved) =>
      redirect(ctx.deps, "/dashboard/knowledge/synonyms", `Synonyms saved (${saved.groups.length} group${saved.groups.length === 1 ? "" : "s"}).`),
    render: (refused) => synonymsPage(ctx, refused),
    refused: (error) =>
      detailErrors(error, () => "synonyms", "synonyms", {
        text: (d) => {
          const line = /^\/synonyms\/(\d+)/.exec(d.path)?.[1];
          return line === undefined ? d.message : `Line ${Number(line) + 1}: ${d.message}`;
        },
      }),
  });
}
