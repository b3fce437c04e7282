// Dashboard: the org's synonyms for knowledge search (knowledge:view to read, knowledge:manage to
// change), one group per line, its words or two-word phrases separated by commas; saved through
// src/knowledge/synonyms.ts as PUT /api/knowledge/synonyms does, and recorded in the activity log.
import { recordActivity } from "../activity/log.ts";
import { memberActor } from "../kit/actor.ts";
import { getSynonyms, putSynonyms, SYNONYM_LIMITS } from "../knowledge/synonyms.ts";
import { type DashboardContext, detailErrors, type FieldErrors, type FormValues, redirect, shellPage, submitForm } from "./kit/index.ts";
import { Synonyms } from "./views/knowledge-synonyms.ts";

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
  const body = Synonyms({ text, manage, maxGroups: SYNONYM_LIMITS.groups, errors: refused?.errors ?? null });
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
