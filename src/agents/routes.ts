// The agents API for the dashboard (README "Agents API"): /api/agents (roles
// agents:view / agents:manage) and the org-wide model setting /api/llm. Action toggles live
// beside it at /api/agents/{id}/actions (src/tools/routes.ts).
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { FreeForm } from "../http/free-form.ts";
import { jsonResponse } from "../kit/json-response.ts";
import { activateAgent, agentView, createAgent, listAgents, readAgent, updateAgent } from "./service.ts";
import { AGENT_LIMITS as L } from "./agent-input.ts";
import { clearOrgLlm, orgLlmView, setOrgLlm } from "./llm-settings.ts";
import { VoiceConfigSchema } from "./voice-config.ts";

const Provider = t.Union([t.Literal("builtin"), t.Literal("openai"), t.Literal("anthropic")]);
const LlmOverride = t.Object(
  {
    provider: Provider,
    base_url: t.Optional(t.Union([t.String({ maxLength: L.baseUrl }), t.Null()])),
    model: t.Optional(t.Union([t.String({ maxLength: L.model }), t.Null()])),
    api_key: t.Optional(t.Union([t.String({ maxLength: L.apiKey }), t.Null()])),
  },
  { additionalProperties: false },
);
const RoutingRule = t.Object(
  {
    match: t.Object(
      {
        keywords: t.Optional(t.Array(t.String({ maxLength: L.keyword }), { maxItems: L.keywords })),
        intent: t.Optional(t.String({ maxLength: L.intent })),
      },
      { additionalProperties: false },
    ),
    team: t.String({ maxLength: L.team }),
    action: t.Optional(t.Union([t.Literal("route"), t.Literal("handoff")])),
  },
  { additionalProperties: false },
);
const Fields = {
  name: t.String({ maxLength: L.name }),
  instructions: t.String({ maxLength: L.instructions }),
  skills: t.Array(t.String({ maxLength: L.skill }), { maxItems: L.skills }),
  routing_rules: t.Array(RoutingRule, { maxItems: L.routingRules }),
  avatar_config: FreeForm({ maxDepth: L.configDepth, maxBytes: L.configBytes }),
  voice_config: VoiceConfigSchema,
  flow_config: t.Object(
    { steps: t.Array(t.Unknown(), { maxItems: L.flowItems }), custom_variables: t.Array(t.Unknown(), { maxItems: L.flowItems }) },
    { additionalProperties: false },
  ),
  live_help_label: t.String({ maxLength: L.liveHelpLabel }),
  video_display_mode: t.String({ maxLength: L.videoDisplayMode }),
  status: t.Union([t.Literal("inactive"), t.Literal("disabled")]),
  llm: t.Union([LlmOverride, t.Null()]),
};
const CreateBody = t.Object(
  {
    name: Fields.name,
    instructions: t.Optional(Fields.instructions),
    skills: t.Optional(Fields.skills),
    routing_rules: t.Optional(Fields.routing_rules),
    avatar_config: t.Optional(Fields.avatar_config),
    voice_config: t.Optional(Fields.voice_config),
    flow_config: t.Optional(Fields.flow_config),
    live_help_label: t.Optional(Fields.live_help_label),
    video_display_mode: t.Optional(Fields.video_display_mode),
    status: t.Optional(Fields.status),
    llm: t.Optional(Fields.llm),
  },
  { additionalProperties: false },
);
const PatchBody = t.Partial(t.Object(Fields), { additionalProperties: false, minProperties: 1 });

const tags = ["Agents"];
const Nullable = (schema: ReturnType<typeof t.String>) => t.Union([schema, t.Null()]);
const LlmView = t.Object({
  operator_default: t.Object({ provider: Provider, model: t.String() }),
  override: t.Union([t.Object({ provider: Provider, base_url: Nullable(t.String()), model: Nullable(t.String()), api_key_set: t.Boolean() }), t.Null()]),
  effective: t.Object({ provider: Provider, model: t.String(), source: t.Union([t.Literal("operator"), t.Literal("org"), t.Literal("agent")]) }),
});
const security = [{ dashboard: [] }];
/** An agent as the API answers it; the stored JSON settings are shown whole (extra fields kept). */
const Free = t.Record(t.String(), t.Unknown());
const AgentView = t.Object({
  id: t.String(),
  name: t.String(),
  status: t.Union([t.Literal("active"), t.Literal("inactive"), t.Literal("disabled")]),
  instructions: t.String(),
  skills: t.Array(t.String()),
  routing_rules: t.Array(
    t.Object(
      {
        match: t.Object({ keywords: t.Optional(t.Array(t.String())), intent: t.Optional(t.String()) }, { additionalProperties: true }),
        team: t.String(),
        action: t.Optional(t.String()),
      },
      { additionalProperties: true },
    ),
  ),
  avatar_config: Free,
  voice_config: Free,
  flow_config: t.Object({ steps: t.Array(t.Unknown()), custom_variables: t.Array(t.Unknown()) }, { additionalProperties: true }),
  live_help_label: t.String(),
  video_display_mode: t.String(),
  llm: t.Union([t.Object({ provider: Provider, base_url: Nullable(t.String()), model: Nullable(t.String()), api_key_set: t.Boolean() }), t.Null()], {
    description: "The agent's own model (pinned), or null to follow the org's.",
  }),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

export function agentRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "invalidation" | "now" | "tools">) {
  return new Elysia({ name: "agents" })
    .get(
      "/api/agents",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "agents:view");
        return { agents: (await listAgents(deps, orgId)).map(agentView) };
      },
      { response: { 200: t.Object({ agents: t.Array(AgentView) }) }, detail: { summary: "List the org's agents (agents:view)", tags, security } },
    )
    .post(
      "/api/agents",
      async ({ body, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "agents:manage");
        return jsonResponse(agentView(await createAgent(deps, orgId, memberActor(principal.member.id), body)), 201);
      },
      { body: CreateBody, response: { 201: AgentView }, detail: { summary: "Create an agent, inactive (agents:manage)", tags, security } },
    )
    .get(
      "/api/agents/:agent_id",
      async ({ params, request }) => {
        const { orgId } = await requireMember(deps, request, "agents:view");
        return agentView(await readAgent(deps, orgId, params.agent_id));
      },
      { response: { 200: AgentView }, detail: { summary: "Read one agent (agents:view)", tags, security } },
    )
    .patch(
      "/api/agents/:agent_id",
      async ({ body, params, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "agents:manage");
        return agentView(await updateAgent(deps, orgId, memberActor(principal.member.id), params.agent_id, body));
      },
      {
        body: PatchBody,
        response: { 200: AgentView },
        detail: {
          summary:
            "Update an agent: instructions, skills, routing rules, look, voice, flow, video mode, model; status disabled (any agent, the active one included: the org then has no active agent) or inactive (not the active agent: 409) (agents:manage)",
          tags,
          security,
        },
      },
    )
    .post(
      "/api/agents/:agent_id/activate",
      async ({ params, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "agents:manage");
        return agentView(await activateAgent(deps, orgId, memberActor(principal.member.id), params.agent_id));
      },
      { response: { 200: AgentView }, detail: { summary: "Make this the org's one active agent (agents:manage)", tags, security } },
    )
    .get(
      "/api/llm",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "agents:view");
        return orgLlmView(deps, orgId);
      },
      { response: { 200: LlmView }, detail: { summary: "The org's model: operator default, override, effective (agents:view)", tags, security } },
    )
    .put(
      "/api/llm",
      async ({ body, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "agents:manage");
        return setOrgLlm(deps, orgId, memberActor(principal.member.id), body);
      },
      {
        body: LlmOverride,
        response: { 200: LlmView },
        detail: { summary: "Set the org's own model; the key is encrypted and never returned (agents:manage)", tags, security },
      },
    )
    .delete(
      "/api/llm",
      async ({ request }) => {
        const { orgId, principal } = await requireMember(deps, request, "agents:manage");
        return clearOrgLlm(deps, orgId, memberActor(principal.member.id));
      },
      { response: { 200: LlmView }, detail: { summary: "Back to the operator's default model (agents:manage)", tags, security } },
    );
}
