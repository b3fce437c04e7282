// The settings pages' data: each section's rows read through the services (widget keys, identity,
// origins, the org's model, OAuth grants, members and invitations), handed to the views in
// views/settings-page.ts; a section shows only to a member holding its role, and the main page
// opens for either.
import { orgLlmView } from "../agents/llm-settings.ts";
import { ROLE_PRESETS, ROLES } from "../auth/roles.ts";
import { listGrants } from "../oauth/grants.ts";
import { INVITATION_LIMITS, listInvitations } from "../orgs/invitations.ts";
import { ADMIN_ROLES, listMembers, ROLE_DESCRIPTIONS } from "../orgs/members.ts";
import { identityView, listWidgetKeys, WIDGET_KEY_LIMITS } from "../orgs/widget-access.ts";
import { allowedOrigins, ORIGIN_LIMITS } from "../sdk/settings.ts";
import { installSnippet } from "../widget/demo.ts";
import { type DashboardContext, PAGE_SIZE, pageNumber, pageOf, shellPage } from "./kit/index.ts";
import type { GrantsProps } from "./views/settings-grants.ts";
import type { MembersProps } from "./views/settings-members.ts";
import type { ModelProps } from "./views/settings-model.ts";
import { IdentityPage, MembersPage, type OrgSectionsProps, type SettingsForms, SettingsPage, WidgetPage } from "./views/settings-page.ts";
import type { AllowedOriginsProps, WidgetKeysProps } from "./views/settings-widget.ts";

export type { SettingsForms } from "./views/settings-page.ts";

type Query = Record<string, string | undefined>;

async function widgetKeys(ctx: DashboardContext, query: Query, forms: SettingsForms): Promise<WidgetKeysProps> {
  const keys = await listWidgetKeys(ctx.deps, ctx.orgId);
  const live = keys.filter((k) => !k.revoked_at).length;
  const sorted = keys.slice().sort((a, b) => Number(a.revoked_at !== null) - Number(b.revoked_at !== null));
  const page = pageOf(sorted, pageNumber(query.keys_page), 10);
  return {
    keys: page.items.map((key) => ({ key, snippet: installSnippet(ctx.deps.config.baseUrl, key.key, ctx.orgId) })),
    total: keys.length,
    live,
    limits: { label: WIDGET_KEY_LIMITS.label, live: WIDGET_KEY_LIMITS.live },
    query,
    page: page.page,
    hasMore: page.hasMore,
    values: forms.values ?? {},
    errors: forms.errors ?? {},
  };
}

async function origins(ctx: DashboardContext, forms: SettingsForms): Promise<AllowedOriginsProps> {
  const list = (await allowedOrigins(ctx.deps, ctx.orgId)).allowed_origins;
  return { origins: list, max: ORIGIN_LIMITS.origins, values: forms.values ?? {}, errors: forms.errors ?? {} };
}

async function grants(ctx: DashboardContext, query: Query): Promise<GrantsProps> {
  const all = (await listGrants(ctx.deps, ctx.orgId, ctx.principal.member.id, true)).grants;
  const page = pageOf(all, pageNumber(query.grants_page));
  return { grants: page.items, total: all.length, query, page: page.page, hasMore: page.hasMore };
}

async function model(ctx: DashboardContext, forms: SettingsForms): Promise<ModelProps> {
  return { llm: await orgLlmView(ctx.deps, ctx.orgId), values: forms.values ?? {}, errors: forms.errors ?? {} };
}

async function orgSections(ctx: DashboardContext, query: Query, forms: SettingsForms): Promise<OrgSectionsProps> {
  return {
    keys: await widgetKeys(ctx, query, forms),
    identity: { identity: await identityView(ctx.deps, ctx.orgId), secret: forms.secret },
    origins: await origins(ctx, forms),
    model: await model(ctx, forms),
    grants: await grants(ctx, query),
  };
}

async function members(ctx: DashboardContext, query: Query, forms: SettingsForms): Promise<MembersProps> {
  const manage = ctx.can("members:manage");
  const people = await listMembers(ctx.deps, ctx.orgId, { page: pageNumber(query.members_page), perPage: PAGE_SIZE });
  const invites = manage ? await listInvitations(ctx.deps, ctx.orgId, { page: pageNumber(query.invites_page), perPage: PAGE_SIZE }) : null;
  return {
    me: ctx.principal.member.id,
    orgName: ctx.orgName,
    manage,
    choices: { roles: ROLES, descriptions: ROLE_DESCRIPTIONS, presets: ROLE_PRESETS, adminRoles: ADMIN_ROLES },
    members: { rows: people.members, page: people.page, hasMore: people.page * people.per_page < people.total },
    invitations: invites && {
      rows: invites.invitations,
      total: invites.total,
      page: invites.page,
      hasMore: invites.page * invites.per_page < invites.total,
    },
    emailMax: INVITATION_LIMITS.email,
    query,
    values: forms.values ?? {},
    errors: forms.errors ?? {},
    inviteRoles: forms.inviteRoles ?? [],
  };
}

export async function settingsPage(ctx: DashboardContext, query: Query, forms: SettingsForms = {}): Promise<Response> {
  const body = SettingsPage({
    viewer: ctx,
    errors: forms.errors ?? {},
    invite: forms.invite && { ...forms.invite, ttlDays: INVITATION_LIMITS.ttlDays },
    org: ctx.can("org:manage") ? await orgSections(ctx, query, forms) : null,
    members: await members(ctx, query, forms),
  });
  return shellPage(ctx, { title: "Settings", active: "settings", body, status: forms.status });
}

/** The widget (keys and snippet, allowed origins) or identity verification section on a page of its own. */
export async function orgSectionPage(ctx: DashboardContext, query: Query, only: "widget" | "identity"): Promise<Response> {
  if (only === "identity") {
    const body = IdentityPage({ viewer: ctx, identity: { identity: await identityView(ctx.deps, ctx.orgId) } });
    return shellPage(ctx, { title: "Identity verification", active: "settings", body });
  }
  const body = WidgetPage({ viewer: ctx, keys: await widgetKeys(ctx, query, {}), origins: await origins(ctx, {}) });
  return shellPage(ctx, { title: "Widget", active: "settings", body });
}

/** The members section on a page of its own (the settings nav's "Members"). */
export async function membersPage(ctx: DashboardContext, query: Query): Promise<Response> {
  const body = MembersPage({ viewer: ctx, members: await members(ctx, query, {}) });
  return shellPage(ctx, { title: "Members and roles", active: "settings", body });
}
