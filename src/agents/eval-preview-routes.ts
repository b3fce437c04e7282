// POST /api/eval/preview: one question tried against an agent, answered in place with why
// (src/agents/eval-preview.ts; README "Measuring answers"). agents:manage, as a run: it may spend
// the agent's model. Limited per member; nothing is stored.
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { EVAL_PREVIEW, previewQuestion } from "./eval-preview.ts";

const Ranked = t.Object({ doc_id: t.String(), title: t.String(), score: t.Number({ description: "the page's lexical score" }) });
const PreviewView = t.Object({
  agent_id: t.String(),
  agent_name: t.String(),
  question: t.String(),
  reply: t.String(),
  confidence: t.Number(),
  answered: t.Boolean({ description: "confidence at or above the chat's offer threshold" }),
  sources: t.Array(t.Object({ doc_id: t.String(), title: t.String() })),
  passage: t.Union([t.Object({ doc_id: t.String(), title: t.String(), text: t.String() }), t.Null()], {
    description: "the best passage of the answer's first source; null when it has none",
  }),
  reasons: t.Object({
    terms: t.Array(
      t.Object({
        word: t.String(),
        found: t.Union([t.Literal("passage"), t.Literal("pages"), t.Literal("none")], {
          description: "passage: in the first page's best passage; pages: only in other pages; none: no page uses it",
        }),
      }),
    ),
    added: t.Array(t.String(), { description: "terms looked for beyond the question's words: corrected spellings, joined or split words, synonyms" }),
    first: t.Union([Ranked, t.Null()]),
    lead: t.Union([t.Number(), t.Null()], { description: "1 − the next page's score / the first page's: how far the first page leads" }),
    next: t.Array(Ranked, { description: "the pages ranked after the first" }),
  }),
});
const PreviewBody = t.Object(
  {
    question: t.String({ minLength: 1, maxLength: EVAL_PREVIEW.chars }),
    agent_id: t.Optional(t.String({ maxLength: 64, description: "default: the org's active agent" })),
  },
  { additionalProperties: false },
);

export function evalPreviewRoutes(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "knowledge" | "limiter" | "log" | "metrics" | "now" | "statements" | "timers">,
) {
  return new Elysia({ name: "eval-preview" }).post(
    "/api/eval/preview",
    async ({ request, body }) => {
      const { orgId, principal } = await requireMember(deps, request, "agents:manage");
      return previewQuestion(deps, orgId, principal.member.id, body.agent_id, body.question, request.signal);
    },
    {
      body: PreviewBody,
      response: PreviewView,
      detail: {
        tags: ["Agents"],
        summary:
          `Try one question against an agent: its answer, ` +
          `the passage it came from, its confidence and why (nothing stored; ${EVAL_PREVIEW.perMinute} a minute per member)`,
      },
    },
  );
}
