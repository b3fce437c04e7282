// What the setup tools (src/setup/tools.ts) share: their input schemas — JSON Schema as MCP's
// tools/list carries it, bounded by the same limits as the dashboard's forms (AGENT_LIMITS,
// DOC_LIMITS) — and who may call them, on which agent.
import { getAgent, readAgent, type Agent } from "../agents/service.ts";
import { AGENT_LIMITS } from "../agents/agent-input.ts";
import { hasRole, type Role } from "../auth/roles.ts";
import { AppError } from "../errors.ts";
import type { Actor } from "../kit/actor.ts";
import { DOC_LIMITS } from "../knowledge/docs.ts";
import { memberRoles } from "../tenancy/memberships.ts";
import { Arg } from "../tools/define.ts";
import type { ToolContext, ToolResult } from "../tools/types.ts";

/** A setting `null` removes: `type: ["string", "null"]`, as tools/list has always carried it. */
const removable = (schema: Record<string, unknown>) => Arg.json<string | null>({ type: ["string", "null"], ...schema });

/** The widget's look as the setup tool writes it into the agent's avatar_config (what /api/sdk/config returns). */
export const LOOK_FIELDS = {
  title: Arg.optional(removable({ minLength: 1, maxLength: 60, description: "The name shown in the widget's header." })),
  greeting: Arg.optional(removable({ minLength: 1, maxLength: 500, description: "The first message a visitor sees." })),
  primary_color: Arg.optional(removable({ pattern: "^#[0-9a-fA-F]{6}$", description: "Bubble and header colour, #rrggbb." })),
  text_color: Arg.optional(
    removable({
      pattern: "^#[0-9a-fA-F]{6}$",
      description: "Text colour on the primary colour, #rrggbb. Unset: black or white, whichever reads better on it.",
    }),
  ),
  image_url: Arg.optional(
    removable({
      pattern: "^https://",
      maxLength: 2048,
      description: "The agent's avatar, an https URL (loaded by the visitor's browser).",
    }),
  ),
  position: Arg.optional(
    Arg.json<"right" | "left" | null>({ type: ["string", "null"], enum: ["right", "left", null], description: "Which bottom corner the bubble sits in." }),
  ),
};

export const agentId = Arg.string({ minLength: 1, maxLength: 64, description: "The agent to change; default: the org's active agent." });
export const status = Arg.choice(["published", "draft"], { description: "Default published: customers' answers use it at once." });
export const tags = Arg.array(Arg.string({ minLength: 1, maxLength: DOC_LIMITS.tag }), {
  maxItems: DOC_LIMITS.tags,
  description: "Labels for the knowledge base.",
});

const L = AGENT_LIMITS;
export const routingRule = Arg.object(
  {
    match: Arg.object(
      {
        keywords: Arg.optional(Arg.array(Arg.string({ minLength: 1, maxLength: L.keyword }), { maxItems: L.keywords })),
        intent: Arg.optional(Arg.string({ minLength: 1, maxLength: L.intent })),
      },
      { additionalProperties: false },
    ),
    team: Arg.string({ minLength: 1, maxLength: L.team }),
    action: Arg.optional(Arg.choice(["route", "handoff"])),
  },
  { additionalProperties: false },
);

/** The member a call acts for, holding `role` in this org now; 403 otherwise. */
export async function requirePerson(ctx: ToolContext, role?: Role): Promise<Actor> {
  const { actor } = ctx;
  if (actor.kind !== "token" && actor.kind !== "member")
    throw AppError.forbidden("Setup tools act only for a member of the organisation (an OAuth token or the dashboard).");
  if (!role) return actor;
  const roles = await memberRoles(ctx.deps.db, ctx.orgId, actor.memberId);
  if (!roles || !hasRole(roles, role)) throw AppError.forbidden(`This needs the ${role} role, which the token's member does not hold in this organisation.`);
  return actor;
}

/**
 * "At least one of these fields", checked here rather than by a top-level `anyOf` in the input
 * schema, which some MCP clients' model APIs refuse (Anthropic's input_schema allows no top-level
 * anyOf, oneOf or allOf), taking the whole tool list down with it.
 */
export function atLeastOne(tool: string, args: Record<string, unknown>, fields: string[]) {
  if (!fields.some((f) => args[f] !== undefined)) throw AppError.badRequest(`Invalid arguments for ${tool}: give at least one of ${fields.join(", ")}.`);
}

/** The agent a setup call changes: the one named (of this org, any status), else the active one. */
export async function targetAgent(ctx: ToolContext, id: unknown): Promise<Agent> {
  if (typeof id === "string") return readAgent(ctx.deps, ctx.orgId, id);
  const agent = await getAgent(ctx.deps, ctx.orgId);
  if (!agent) throw AppError.notFound("This organisation has no active agent: name one with agent_id.");
  return agent;
}

export async function ok(value: unknown): Promise<ToolResult> {
  return { value };
}
