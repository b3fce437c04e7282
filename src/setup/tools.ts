// Built-in family: setting the org up from an AI client (`setup_*`). Reads need
// setup:read, writes setup:write. Every write goes through the same function as the dashboard
// (agents: src/agents/service.ts; documents: src/knowledge/docs.ts and docs-import.ts; allowed
// origins: src/sdk/settings.ts), so it is validated the same way and recorded in the activity
// log with the token (and its member) as the actor; the runtime audits every call.
//
// Who may: a person of the org — an OAuth token's member, or a dashboard member. The scope says
// what the client may do; the member must also hold the dashboard role the same change needs
// there (agents:manage, knowledge:manage, org:manage for allowed origins), so a token cannot do
// more than its member could by hand. A chat customer or a system actor is refused (403): the chat
// pipeline never offers these tools, and this holds even if a model names one.
//
// Annotations are honest by the house rule (destructiveHint = changes state outside the service):
// none of these reach a customer or another system, so none is destructive.
import { recordActivity } from "../activity/log.ts";
import { agentView, getAgent, updateAgent } from "../agents/service.ts";
import { AGENT_LIMITS } from "../agents/agent-input.ts";
import { liveWidgetKeys } from "../orgs/lookups.ts";
import { AppError } from "../errors.ts";
import { installSnippet } from "../widget/demo.ts";
import { createDoc, DOC_LIMITS, docView } from "../knowledge/docs.ts";
import { importDocFromUrl } from "../knowledge/docs-import.ts";
import { normaliseOrigin } from "../sdk/auth.ts";
import { allowedOrigins, ORIGIN_LIMITS, setAllowedOrigins } from "../sdk/settings.ts";
import { Arg, defineTool } from "../tools/define.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { setupStatus } from "./status.ts";
import { agentId, atLeastOne, LOOK_FIELDS, ok, requirePerson, routingRule, status, tags, targetAgent } from "./tool-kit.ts";

const source = { kind: "builtin" as const, label: "Setup" };
const L = AGENT_LIMITS;

// --- the tools -----------------------------------------------------------------------------------

export const setupTools: ToolDefinition[] = [
  defineTool({
    name: "setup_status",
    description:
      "A checklist of the organisation's setup: an active agent, published knowledge-base documents, the widget installed (traffic seen from a widget key), " +
      "identity verification and connectors. `ready` is true when every required item is done; each item says what to do next.",
    input: Arg.object({}, { additionalProperties: false }),
    title: "Setup checklist",
    readOnly: true,
    scope: "setup:read",
    source,
    async execute(ctx) {
      await requirePerson(ctx);
      return ok(await setupStatus(ctx.deps, ctx.orgId));
    },
  }),
  defineTool({
    name: "setup_get_install_snippet",
    description:
      "The two-line HTML snippet that installs the chat widget on a website, with the organisation's publishable widget key and id. Paste it before </body>.",
    input: Arg.object(
      { key_id: Arg.optional(Arg.string({ minLength: 1, maxLength: 64, description: "Which live widget key; default: the oldest live one." })) },
      { additionalProperties: false },
    ),
    title: "Widget install snippet",
    readOnly: true,
    scope: "setup:read",
    source,
    async execute(ctx, args) {
      await requirePerson(ctx);
      const keys = await liveWidgetKeys(ctx.deps, ctx.orgId);
      const key = typeof args.key_id === "string" ? keys.find((k) => k.id === args.key_id) : keys[0];
      if (!key)
        throw AppError.notFound(
          typeof args.key_id === "string" ? `No live widget key ${args.key_id}.` : "This organisation has no live widget key: create one in the dashboard.",
        );
      // The widget's own snippet (src/widget/demo.ts), so the tool, /demo and the dashboard agree.
      const snippet = installSnippet(ctx.deps.config.baseUrl, key.key, ctx.orgId);
      return ok({ snippet, script_url: `${ctx.deps.config.baseUrl}/widget.js`, key: key.key, key_id: key.id, key_label: key.label, org_id: ctx.orgId });
    },
  }),
  defineTool({
    name: "setup_update_agent",
    description:
      "Change an agent's name, instructions, skills or routing rules (each given replaces the stored one). " +
      "Default: the organisation's active agent. Returns the agent.",
    input: Arg.object(
      {
        agent_id: Arg.optional(agentId),
        name: Arg.optional(Arg.string({ minLength: 1, maxLength: L.name })),
        instructions: Arg.optional(Arg.string({ maxLength: L.instructions, description: "How the agent behaves and answers." })),
        skills: Arg.optional(
          Arg.array(Arg.string({ minLength: 1, maxLength: L.skill }), {
            maxItems: L.skills,
            uniqueItems: true,
            description: "What the agent handles; handoffs pick agents by skill.",
          }),
        ),
        routing_rules: Arg.optional(
          Arg.array(routingRule, {
            maxItems: L.routingRules,
            description: "Messages matching keywords or an intent go to a team (route) or another agent (handoff).",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    title: "Update an agent",
    idempotent: true,
    scope: "setup:write",
    source,
    async execute(ctx, args) {
      atLeastOne("setup_update_agent", args, ["name", "instructions", "skills", "routing_rules"]);
      const actor = await requirePerson(ctx, "agents:manage");
      const agent = await targetAgent(ctx, args.agent_id);
      const updated = await updateAgent(ctx.deps, ctx.orgId, actor, agent.id, {
        name: args.name,
        instructions: args.instructions,
        skills: args.skills,
        routing_rules: args.routing_rules,
      });
      return ok(agentView(updated));
    },
  }),
  defineTool({
    name: "setup_add_doc",
    description: "Add a knowledge-base document (markdown). Published by default: the agent answers from it at once.",
    input: Arg.object(
      {
        title: Arg.string({ minLength: 1, maxLength: DOC_LIMITS.title }),
        body: Arg.string({ minLength: 1, maxLength: DOC_LIMITS.body, description: "The document's text, in markdown." }),
        url: Arg.optional(
          Arg.string({ pattern: "^https?://", maxLength: DOC_LIMITS.url, description: "Where the document lives, shown with answers that cite it." }),
        ),
        tags: Arg.optional(tags),
        status: Arg.optional(status),
      },
      { additionalProperties: false },
    ),
    title: "Add a knowledge-base document",
    scope: "setup:write",
    source,
    async execute(ctx, args) {
      const actor = await requirePerson(ctx, "knowledge:manage");
      if (args.title.trim() === "") throw AppError.badRequest("Invalid arguments for setup_add_doc: /title must not be blank.");
      const doc = await createDoc(ctx.deps, ctx.orgId, {
        title: args.title.trim(),
        body: args.body,
        url: args.url ?? null,
        tags: args.tags,
        status: args.status,
      });
      await recordActivity(ctx.deps, {
        orgId: ctx.orgId,
        actor,
        action: "doc.created",
        objectType: "doc",
        objectId: doc.id,
        summary: { status: doc.status, characters: doc.body.length },
      });
      return ok(docView(doc));
    },
  }),
  defineTool({
    name: "setup_import_doc_from_url",
    description:
      "Import a web page as a knowledge-base document: fetched once over https (no redirects followed, at most 2 MiB, 15 s), " +
      "HTML turned into readable text titled by the page; markdown and plain text kept as they are. Published by default.",
    input: Arg.object(
      {
        url: Arg.string({ minLength: 1, maxLength: DOC_LIMITS.url, description: "The page, https://…" }),
        title: Arg.optional(Arg.string({ minLength: 1, maxLength: DOC_LIMITS.title, description: "Overrides the page's own title." })),
        tags: Arg.optional(tags),
        status: Arg.optional(status),
      },
      { additionalProperties: false },
    ),
    title: "Import a document from a URL",
    openWorld: true,
    scope: "setup:write",
    source,
    async execute(ctx, args) {
      const actor = await requirePerson(ctx, "knowledge:manage");
      try {
        const doc = await importDocFromUrl(
          ctx.deps,
          ctx.orgId,
          actor,
          {
            url: args.url,
            title: args.title,
            tags: args.tags,
            status: args.status,
          },
          ctx.signal,
        );
        return ok(docView(doc));
      } catch (error) {
        // The page could not be imported (its status, a redirect, its type, size or time): a
        // result the client can act on, like a failed custom action, not a transport error.
        if (error instanceof AppError && error.code === "import_failed") return { value: { error: error.code, message: error.message }, isError: true };
        throw error;
      }
    },
  }),
  defineTool({
    name: "setup_configure_widget",
    description:
      "Configure the chat widget: its look (title, greeting, colours, avatar image, corner; " +
      'null removes a setting), the agent\'s live-help label (the "talk to a person" action), ' +
      "and the browser origins allowed to use the widget key (replaces the list; empty allows any origin). Returns the resulting settings.",
    input: Arg.object(
      {
        agent_id: Arg.optional(agentId),
        look: Arg.optional(Arg.object(LOOK_FIELDS, { additionalProperties: false, minProperties: 1 })),
        live_help_label: Arg.optional(Arg.string({ minLength: 1, maxLength: L.liveHelpLabel })),
        allowed_origins: Arg.optional(
          Arg.array(Arg.string({ minLength: 1, maxLength: 2048, description: "scheme://host[:port], e.g. https://shop.example" }), {
            maxItems: ORIGIN_LIMITS.origins,
          }),
        ),
      },
      { additionalProperties: false },
    ),
    title: "Configure the widget",
    idempotent: true,
    scope: "setup:write",
    source,
    async execute(ctx, args) {
      atLeastOne("setup_configure_widget", args, ["look", "live_help_label", "allowed_origins"]);
      // Each part needs the role its dashboard page needs; all are checked before anything changes.
      const touchesAgent = args.look !== undefined || args.live_help_label !== undefined;
      let actor = await requirePerson(ctx, touchesAgent ? "agents:manage" : undefined);
      if (args.allowed_origins !== undefined) actor = await requirePerson(ctx, "org:manage");
      let agent = touchesAgent || args.agent_id !== undefined ? await targetAgent(ctx, args.agent_id) : await getAgent(ctx.deps, ctx.orgId);
      // All or nothing: the origins are checked before the agent changes, and stored after it did
      // (the agents service refuses for its own reasons, such as control characters in the label).
      const requested = args.allowed_origins;
      const badOrigin = requested?.findIndex((origin) => normaliseOrigin(origin) === null) ?? -1;
      if (badOrigin >= 0)
        throw AppError.badRequest(
          `Invalid arguments for setup_configure_widget: /allowed_origins/${badOrigin} must be an http(s) origin such as https://shop.example, without a path.`,
        );
      if (touchesAgent && agent) {
        const look = { ...agent.avatarConfig };
        for (const [field, value] of Object.entries(args.look ?? {})) {
          if (value === null) delete look[field];
          else look[field] = value;
        }
        agent = await updateAgent(ctx.deps, ctx.orgId, actor, agent.id, {
          ...(args.look !== undefined ? { avatar_config: look } : {}),
          live_help_label: args.live_help_label,
        });
      }
      const origins = requested !== undefined ? await setAllowedOrigins(ctx.deps, ctx.orgId, actor, requested) : await allowedOrigins(ctx.deps, ctx.orgId);
      return ok({
        agent: agent ? { id: agent.id, name: agent.name, look: agent.avatarConfig, live_help_label: agent.liveHelpLabel } : null,
        allowed_origins: origins.allowed_origins,
      });
    },
  }),
];
