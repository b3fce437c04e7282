// Dashboard: agents (agents:view to read, agents:manage to change). The list with a create form
// (agent-list.ts), one agent's edit form (agent-edit.ts: instructions, skills, routing rules, the
// widget's look and live-help label, voice settings and video display mode, the model with a
// write-only key), the conversation flow (agent-flow.ts), activate, disable after a confirmation
// page and enable (agent-disable.ts), and the per-agent action toggles (agent-actions.ts). Every
// change goes through src/agents/service.ts and src/tools/toggles.ts, as /api/agents does, so the
// page and the API share every limit.
import { Elysia, t } from "elysia";
import { activateAgent, readAgent } from "../agents/service.ts";
import { AGENT_LIMITS } from "../agents/agent-input.ts";
import { memberActor } from "../kit/actor.ts";
import { type DashboardDeps, formBody, formValues, IdParams, redirect, withMember } from "./kit/index.ts";
import { actionsPage, saveToggles } from "./agent-actions.ts";
import { disable, disablePage, enable } from "./agent-disable.ts";
import { editPage, save } from "./agent-edit.ts";
import { saveFlow, showFlow } from "./agent-flow.ts";
import { create, listPage } from "./agent-list.ts";

export { flowItemText, parseFlowItem } from "./agent-flow-form.ts";
export { parseRules, rulesToText } from "./agent-rules.ts";

const L = AGENT_LIMITS;
const Page = t.Object({ page: t.Optional(t.String({ maxLength: 10 })), source: t.Optional(t.String({ maxLength: 20 })) });
/** Form bodies: every field a bounded string (the page reports what is wrong with each). */
const FormBody = formBody({ text: 40_000, item: 300, items: 2000 });
/** The flow form: one field a row, each up to the whole flow's size, a few more rows than the limit allows (the service says what is too many). */
const FlowBody = formBody({ text: L.flowBytes + 1024, item: L.flowBytes + 1024, items: 4 * (L.flowItems + 10) });

export function agentPages(deps: DashboardDeps) {
  const agent = (ctx: { orgId: string }, id: string) => readAgent(deps, ctx.orgId, id);
  return new Elysia({ name: "dashboard-agents" })
    .get("/dashboard/agents", ({ request, query }) => withMember(deps, request, "agents:view", (ctx) => listPage(ctx, query)), { query: Page })
    .post("/dashboard/agents", ({ request, body }) => withMember(deps, request, "agents:manage", (ctx) => create(ctx, formValues(body))), { body: FormBody })
    .get(
      "/dashboard/agents/:id",
      ({ request, params }) => withMember(deps, request, "agents:view", async (ctx) => editPage(ctx, await agent(ctx, params.id))),
      { params: IdParams },
    )
    .post(
      "/dashboard/agents/:id",
      ({ request, params, body }) => withMember(deps, request, "agents:manage", async (ctx) => save(ctx, await agent(ctx, params.id), formValues(body))),
      { params: IdParams, body: FormBody },
    )
    .post(
      "/dashboard/agents/:id/activate",
      ({ request, params }) =>
        withMember(deps, request, "agents:manage", async (ctx) => {
          const activated = await activateAgent(deps, ctx.orgId, memberActor(ctx.principal.member.id), params.id);
          return redirect(deps, `/dashboard/agents/${activated.id}`, `“${activated.name}” is now the active agent.`);
        }),
      { params: IdParams },
    )
    .get(
      "/dashboard/agents/:id/flow",
      ({ request, params }) => withMember(deps, request, "agents:view", async (ctx) => showFlow(ctx, await agent(ctx, params.id))),
      { params: IdParams },
    )
    .post(
      "/dashboard/agents/:id/flow",
      ({ request, params, body }) => withMember(deps, request, "agents:manage", async (ctx) => saveFlow(ctx, await agent(ctx, params.id), body)),
      { params: IdParams, body: FlowBody },
    )
    .get(
      "/dashboard/agents/:id/disable",
      ({ request, params }) => withMember(deps, request, "agents:manage", async (ctx) => disablePage(ctx, await agent(ctx, params.id))),
      { params: IdParams },
    )
    .post(
      "/dashboard/agents/:id/disable",
      ({ request, params, body }) => withMember(deps, request, "agents:manage", async (ctx) => disable(ctx, await agent(ctx, params.id), formValues(body))),
      { params: IdParams, body: FormBody },
    )
    .post(
      "/dashboard/agents/:id/enable",
      ({ request, params }) => withMember(deps, request, "agents:manage", async (ctx) => enable(ctx, await agent(ctx, params.id))),
      { params: IdParams },
    )
    .get(
      "/dashboard/agents/:id/actions",
      ({ request, params, query }) => withMember(deps, request, "agents:view", async (ctx) => actionsPage(ctx, await agent(ctx, params.id), query)),
      { params: IdParams, query: Page },
    )
    .post(
      "/dashboard/agents/:id/actions",
      ({ request, params, body }) => withMember(deps, request, "agents:manage", async (ctx) => saveToggles(ctx, await agent(ctx, params.id), body)),
      { params: IdParams, body: FormBody },
    );
}
