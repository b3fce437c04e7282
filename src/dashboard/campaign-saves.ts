// The campaign page's two form posts: the steps form (the campaign's name, sender and every step,
// replaced at once) and the audience rule. Each refuses a form opened before someone else's change
// (409, the typed values kept), since saving it would undo that change.
import { editCampaign } from "../campaigns/lifecycle.ts";
import { type Campaign, CAMPAIGN_LIMITS, type StepInput } from "../campaigns/model.ts";
import { AppError } from "../errors.ts";
import { type DashboardContext, type FieldErrors, type FormValues, redirect, submitForm } from "./kit/index.ts";
import { audienceFrom, audienceServiceErrors, audienceVersion } from "./campaigns-audience.ts";
import { actor, serviceErrors } from "./campaign-common.ts";
import { parseDelay } from "./campaign-delay.ts";
import { campaignPage } from "./campaign-page.ts";

const L = CAMPAIGN_LIMITS;

/** The edit form's values as the service's patch, or the field errors that stop it. */
function patchFrom(v: FormValues): { input: { name: string; steps: StepInput[]; sender: { name: string; reply_to?: string | null } }; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const name = (v.name ?? "").trim();
  if (!name) errors.name = "Give the campaign a name.";
  else if (name.length > L.name) errors.name = `At most ${L.name} characters.`;
  const count = Math.min(Number(v.count) || 0, L.steps);
  const steps: StepInput[] = [];
  // Existing steps 0..count-1 (keeping their ids), then the blank "add a step" one at index count.
  for (let i = 0; i <= count; i++) {
    const isNew = i === count;
    if (!isNew && v[`s${i}_remove`] === "on") continue;
    const subject = v[`s${i}_subject`] ?? "";
    const body = v[`s${i}_body`] ?? "";
    if (isNew && subject.trim() === "" && body.trim() === "") continue;
    const delay = parseDelay(v[`s${i}_delay`] ?? "");
    if (delay === null || delay > L.delaySeconds) errors[`s${i}_delay`] = delay === null ? "Write a delay as 3d, 12h, 30m, 45s or 0." : "At most 365 days.";
    if (subject.trim() === "") errors[`s${i}_subject`] = "Give the email a subject.";
    else if (subject.length > L.subject) errors[`s${i}_subject`] = `At most ${L.subject} characters.`;
    if (body.trim() === "") errors[`s${i}_body`] = "Write the email.";
    else if (body.length > L.body) errors[`s${i}_body`] = `At most ${L.body} characters (this has ${body.length}).`;
    const id = isNew ? undefined : v[`s${i}_id`];
    steps.push({ ...(id ? { id } : {}), delay_seconds: delay ?? 0, delay_from: v[`s${i}_from`] === "enrolment" ? "enrolment" : "previous", subject, body });
  }
  const replyTo = (v.reply_to ?? "").trim();
  return { input: { name, steps, sender: { name: (v.sender_name ?? "").trim() || name, reply_to: replyTo === "" ? null : replyTo } }, errors };
}

/** Service errors name steps by their position in the patch; the form names them by their row (removed rows shift the positions). */
function remapStepErrors(errors: FieldErrors, v: FormValues): FieldErrors {
  const count = Math.min(Number(v.count) || 0, L.steps);
  const rows: number[] = [];
  for (let i = 0; i <= count; i++) {
    if (i < count && v[`s${i}_remove`] === "on") continue;
    if (i === count && (v[`s${i}_subject`] ?? "").trim() === "" && (v[`s${i}_body`] ?? "").trim() === "") continue;
    rows.push(i);
  }
  const out: FieldErrors = {};
  for (const [key, message] of Object.entries(errors)) {
    const m = /^s(\d+)_(.+)$/.exec(key);
    out[m ? `s${rows[Number(m[1])] ?? m[1]}_${m[2]}` : key === "sender" && message.includes("email") ? "reply_to" : key] = message;
  }
  return out;
}
export async function saveSteps(ctx: DashboardContext, c: Campaign, values: FormValues): Promise<Response> {
  // The form replaces every step: one rendered before someone else's edit would undo it.
  if (values.version !== undefined && values.version !== c.updatedAt.toISOString()) return campaignPage(ctx, c, { values, errors: {}, conflict: true });
  const back = `/dashboard/campaigns/${c.slug}`;
  return submitForm({
    values,
    validate: patchFrom,
    call: (patch) => editCampaign(ctx.deps, { orgId: ctx.orgId, actor: actor(ctx), ref: c.id, patch }),
    done: () => redirect(ctx.deps, back, "Campaign saved."),
    render: ({ errors }) => campaignPage(ctx, c, { values, errors }),
    refused: (error) => (error.status === 400 ? remapStepErrors(serviceErrors(error), values) : null),
  }).catch(conflictFlash(ctx, back));
}

export async function saveAudience(ctx: DashboardContext, c: Campaign, values: FormValues): Promise<Response> {
  // The form replaces the whole rule: one opened before someone else changed it would undo that change.
  if (values.audience_version !== undefined && values.audience_version !== audienceVersion(c.audience))
    return campaignPage(ctx, c, undefined, { values, errors: {}, conflict: true });
  const back = `/dashboard/campaigns/${c.slug}`;
  return submitForm({
    values,
    validate: (v) => (v.do === "clear" ? { input: null, errors: {} } : (({ audience, errors }) => ({ input: audience, errors }))(audienceFrom(v))),
    call: async (audience) => {
      await editCampaign(ctx.deps, { orgId: ctx.orgId, actor: actor(ctx), ref: c.id, patch: { audience } });
      return audience;
    },
    done: (audience) =>
      redirect(
        ctx.deps,
        back,
        audience
          ? c.status === "active"
            ? "Audience saved: matching customers are enrolled within a minute."
            : "Audience saved: matching customers are enrolled once the campaign is active."
          : "Audience rule removed: customers are enrolled by hand or through the API only.",
      ),
    render: ({ errors }) => campaignPage(ctx, c, undefined, { values, errors }),
    refused: (error) => (error.status === 400 ? audienceServiceErrors(error, values) : null),
  }).catch(conflictFlash(ctx, back));
}

/** A campaign the service will not change any more (archived meanwhile: 409): said in the flash. */
function conflictFlash(ctx: DashboardContext, back: string) {
  return (error: unknown) => {
    if (error instanceof AppError && error.status === 409) return redirect(ctx.deps, back, { kind: "error", text: error.message });
    throw error;
  };
}
