// The campaigns list (archived campaigns behind a filter) and the form that creates a campaign.
import { createCampaign } from "../campaigns/lifecycle.ts";
import { CAMPAIGN_LIMITS } from "../campaigns/model.ts";
import { listCampaigns } from "../campaigns/queries.ts";
import { type DashboardContext, type FieldErrors, pageNumber, pageOf, redirect, type Refused, shellPage, submitForm, type FormValues } from "./kit/index.ts";
import { actor, serviceErrors } from "./campaign-common.ts";
import { CampaignList } from "./views/campaign-list.ts";

const L = CAMPAIGN_LIMITS;

/** The list's filter: the default hides archived campaigns; "archived" shows only them, "all" everything. */
const LIST_FILTERS = ["", "draft", "active", "paused", "archived", "all"] as const;

export async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>, form?: Refused): Promise<Response> {
  const all = await listCampaigns(ctx.deps, ctx.orgId, undefined);
  const filter = (LIST_FILTERS as readonly string[]).includes(query.status ?? "") ? (query.status ?? "") : "";
  const shown = filter === "all" ? all : filter === "" ? all.filter((c) => c.status !== "archived") : all.filter((c) => c.status === filter);
  const archived = filter === "" ? all.filter((c) => c.status === "archived").length : 0;
  const page = pageOf(shown, pageNumber(query.page));
  const manage = ctx.can("automation:manage");
  const body = CampaignList({ filter, page, archived, manage, values: form?.values ?? {}, errors: form?.errors ?? {}, limits: L });
  // A refused form answers 400, whatever the service said (a taken slug included).
  return shellPage(ctx, { title: "Campaigns", active: "campaigns", body, status: form ? 400 : 200 });
}

function createInput(values: FormValues): { input: { name: string; slug?: string }; errors: FieldErrors } {
  const name = (values.name ?? "").trim();
  const slug = (values.slug ?? "").trim();
  const errors: FieldErrors = {};
  if (!name) errors.name = "Give the campaign a name.";
  else if (name.length > L.name) errors.name = `At most ${L.name} characters.`;
  if (slug && !/^[a-z0-9][a-z0-9-]{0,63}$/.test(slug)) errors.slug = "Lower-case letters, digits and hyphens, starting with a letter or digit.";
  return { input: { name, ...(slug ? { slug } : {}) }, errors };
}

export function create(ctx: DashboardContext, values: FormValues): Promise<Response> {
  return submitForm({
    values,
    validate: createInput,
    call: (input) => createCampaign(ctx.deps, { orgId: ctx.orgId, actor: actor(ctx), input }),
    done: (c) => redirect(ctx.deps, `/dashboard/campaigns/${c.slug}`, `Campaign “${c.name}” created. Add its first step.`),
    render: (refused) => listPage(ctx, {}, refused),
    refused: (error) =>
      error.status === 400 ? serviceErrors(error) : error.status === 409 ? { [error.code === "conflict" ? "slug" : "name"]: error.message } : null,
  });
}
