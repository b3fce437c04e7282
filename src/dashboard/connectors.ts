// Dashboard: connectors (docs/interface.md 2.1 and 4.1). Connect an MCP server (the slug derived
// from the name as the user types; the handshake and discovery run before the answer, so the
// button shows "Connecting…"), its status, discovered and dropped tools, refresh (optionally with
// new credentials), disconnect. Through src/connectors/service.ts, as /api/integrations/mcp/servers.
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { connect, connectorView, disconnect, listConnectors, refreshConnector } from "../connectors/service.ts";
import { AUTH_METHODS, CONNECTOR_LIMITS, type ConnectorAuthMethod, CREDENTIAL_FIELDS } from "../connectors/rules.ts";
import { AppError } from "../errors.ts";
import { isSlug } from "../kit/slugs.ts";
import { setFeatureFlag } from "../orgs/service.ts";
import { slugOf } from "./client/slug.ts";
import {
  type DashboardContext,
  type DashboardDeps,
  detailErrors,
  type Refused,
  submitForm,
  type FieldErrors,
  formValues,
  type FormValues,
  pageNumber,
  pageOf,
  redirect,
  shellPage,
  withMember,
  formBody,
  IdParams,
} from "./kit/index.ts";
import { ConnectorDetail } from "./views/connector-detail.ts";
import { ConnectorList } from "./views/connector-list.ts";

type View = ReturnType<typeof connectorView>;

/** The slug the dashboard proposes for a name (docs/interface.md 2.1): what /assets/dashboard.js does as one types. */
export const slugFromName = slugOf;

function credentialsFrom(v: FormValues): { method: ConnectorAuthMethod; credentials: Record<string, string> } {
  const method = (AUTH_METHODS as string[]).includes(v.auth_method ?? "") ? (v.auth_method as ConnectorAuthMethod) : "none";
  const credentials: Record<string, string> = {};
  for (const name of CREDENTIAL_FIELDS[method]) if (v[`cred_${name}`]) credentials[name] = v[`cred_${name}`]!;
  return { method, credentials };
}

function errorsFromService(error: AppError, fallback: string): FieldErrors {
  return detailErrors(error, ([first, second]) => (first === "credentials" ? `cred_${second}` : (first ?? fallback)), fallback);
}

// ---- pages --------------------------------------------------------------------------------------

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>, form?: Refused): Promise<Response> {
  const { enabled, servers } = await listConnectors(ctx.deps, ctx.orgId);
  const page = pageOf(servers, pageNumber(query.page));
  const body = ConnectorList({
    enabled,
    servers: page.items,
    none: servers.length === 0,
    query,
    page: page.page,
    hasMore: page.hasMore,
    orgId: ctx.orgId,
    manage: ctx.can("integrations:manage"),
    manageOrg: ctx.can("org:manage"),
    values: form?.values ?? {},
    errors: form?.errors ?? {},
    methods: AUTH_METHODS,
    nameMax: CONNECTOR_LIMITS.name,
  });
  return shellPage(ctx, { title: "Connectors", active: "connectors", body, status: form?.status });
}

async function serverOf(ctx: DashboardContext, id: string): Promise<View> {
  const server = (await listConnectors(ctx.deps, ctx.orgId)).servers.find((s) => s.id === id);
  if (!server) throw AppError.notFound("No such connector.");
  return server;
}

function detailPage(ctx: DashboardContext, s: View, query: Record<string, string | undefined>, form?: Refused): Response {
  const tools = pageOf(s.discovered_tools, pageNumber(query.page), 50);
  const body = ConnectorDetail({
    server: s,
    tools: tools.items,
    query,
    page: tools.page,
    hasMore: tools.hasMore,
    manage: ctx.can("integrations:manage"),
    values: form?.values ?? { name: s.name, auth_method: s.auth_method },
    errors: form?.errors ?? {},
    methods: AUTH_METHODS,
    nameMax: CONNECTOR_LIMITS.name,
  });
  return shellPage(ctx, { title: s.name, active: "connectors", body, status: form?.status });
}

// ---- posts --------------------------------------------------------------------------------------

/** Connect: the handshake and discovery run before the answer; a failed discovery still saves. */
function connectServer(ctx: DashboardContext, values: FormValues): Promise<Response> {
  const name = (values.name ?? "").trim();
  // The slug shown again is the one derived, when it was left empty.
  const kept = { ...values, slug: (values.slug ?? "").trim() || slugFromName(name) };
  return submitForm({
    values: kept,
    validate: (v) => {
      const slug = v.slug!;
      const url = (v.url ?? "").trim();
      const errors: FieldErrors = {};
      if (!name) errors.name = "Give the server a name.";
      else if (name.length > CONNECTOR_LIMITS.name) errors.name = `At most ${CONNECTOR_LIMITS.name} characters.`;
      if (name && !isSlug(slug)) errors.slug = "Lower-case letters, digits and _, starting with a letter, at most 32.";
      if (!url) errors.url = "Give the server's MCP URL.";
      const { method, credentials } = credentialsFrom(v);
      return { input: { name, slug, url, auth_method: method, credentials }, errors };
    },
    call: (input) => connect(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), input),
    done: (result) =>
      redirect(
        ctx.deps,
        `/dashboard/connectors/${result.id}`,
        result.status === "connected"
          ? `Connected: ${result.tool_count} tool${result.tool_count === 1 ? "" : "s"} discovered.`
          : { kind: "error", text: `Saved, but discovery failed: ${result.error ?? result.status}` },
      ),
    render: (refused) => listPage(ctx, {}, refused),
    refused: (error) => (error.status === 400 || error.status === 409 ? errorsFromService(error, "url") : null),
  });
}

/** Refresh: the name, and the credentials only when "Replace the credentials" is ticked. */
function refresh(ctx: DashboardContext, server: View, values: FormValues): Promise<Response> {
  return submitForm({
    values,
    validate: (v) => {
      const name = (v.name ?? "").trim();
      const { method, credentials } = credentialsFrom(v);
      return {
        input: { name, ...(v.replace_credentials === "on" ? { auth_method: method, credentials } : {}) },
        errors: (name ? {} : { name: "Give the server a name." }) as FieldErrors,
      };
    },
    call: (input) => refreshConnector(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), server.id, input),
    done: (view) =>
      redirect(
        ctx.deps,
        `/dashboard/connectors/${server.id}`,
        view.status === "connected"
          ? `Refreshed: ${view.tool_count} tool${view.tool_count === 1 ? "" : "s"}.`
          : { kind: "error", text: `Refresh failed: ${view.last_error ?? view.status}` },
      ),
    render: (refused) => detailPage(ctx, server, {}, refused),
    refused: (error) => (error.status === 400 ? errorsFromService(error, "name") : null),
  });
}

// ---- routes -------------------------------------------------------------------------------------

const Query = t.Object({ page: t.Optional(t.String({ maxLength: 10 })) });
const FormBody = formBody({ text: 20_000, item: 1000, items: 10 });

export function connectorPages(deps: DashboardDeps) {
  return new Elysia({ name: "dashboard-connectors" })
    .get("/dashboard/connectors", ({ request, query }) => withMember(deps, request, "integrations:view", (ctx) => listPage(ctx, query)), { query: Query })
    .post("/dashboard/connectors/enable", ({ request }) =>
      withMember(deps, request, "org:manage", async (ctx) => {
        await setFeatureFlag(deps, ctx.orgId, memberActor(ctx.principal.member.id), "mcp_external_servers", true);
        return redirect(deps, "/dashboard/connectors", "Connectors are on: connect a server below.");
      }),
    )
    .post("/dashboard/connectors", ({ request, body }) => withMember(deps, request, "integrations:manage", (ctx) => connectServer(ctx, formValues(body))), {
      body: FormBody,
    })
    .get(
      "/dashboard/connectors/:id",
      ({ request, params, query }) => withMember(deps, request, "integrations:view", async (ctx) => detailPage(ctx, await serverOf(ctx, params.id), query)),
      { params: IdParams, query: Query },
    )
    .post(
      "/dashboard/connectors/:id/refresh",
      ({ request, params, body }) =>
        withMember(deps, request, "integrations:manage", async (ctx) => refresh(ctx, await serverOf(ctx, params.id), formValues(body))),
      { params: IdParams, body: FormBody },
    )
    .post(
      "/dashboard/connectors/:id/disconnect",
      ({ request, params }) =>
        withMember(deps, request, "integrations:manage", async (ctx) => {
          const server = await serverOf(ctx, params.id);
          await disconnect(deps, ctx.orgId, memberActor(ctx.principal.member.id), server.id);
          return redirect(deps, "/dashboard/connectors", `“${server.name}” disconnected.`);
        }),
      { params: IdParams },
    );
}
