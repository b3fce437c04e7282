// Agent action toggles for the dashboard: /api/agents/{agent_id}/actions.
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { listAgentActions, setAgentActions } from "./toggles.ts";

const Ids = t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 500 });
const AgentActions = t.Object({
  actions: t.Array(
    t.Object({
      id: t.String({ description: "The action's name, e.g. mcp.github.create_issue." }),
      source: t.Object({ kind: t.String(), label: t.String(), id: t.Optional(t.String()) }),
      name: t.String(),
      description: t.String(),
      destructive: t.Boolean(),
      scope: t.String({ description: "The OAuth scope an MCP client needs to call it." }),
      enabled: t.Boolean(),
    }),
  ),
});

export function toggleRoutes(deps: Pick<Deps, "config" | "db" | "now" | "tools">) {
  return new Elysia({ name: "agent-actions" })
    .get(
      "/api/agents/:agent_id/actions",
      async ({ params, request }) => {
        const { orgId } = await requireMember(deps, request, "integrations:view");
        return { actions: await listAgentActions(deps, orgId, params.agent_id) };
      },
      {
        response: { 200: AgentActions },
        detail: {
          summary: "The actions an agent may call (connector tools and custom actions), each on or off (integrations:view)",
          tags: ["Agents"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .patch(
      "/api/agents/:agent_id/actions",
      async ({ body, params, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "integrations:manage");
        return { actions: await setAgentActions(deps, orgId, memberActor(principal.member.id), params.agent_id, body) };
      },
      {
        body: t.Object({ enable: t.Optional(Ids), disable: t.Optional(Ids) }, { additionalProperties: false }),
        response: { 200: AgentActions },
        detail: { summary: "Turn an agent's actions on or off (integrations:manage)", tags: ["Agents"], security: [{ dashboard: [] }] },
      },
    );
}
