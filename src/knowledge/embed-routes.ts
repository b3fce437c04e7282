// GET /api/knowledge/embeddings: how far the background embedding of the org's passages has got
// (src/knowledge/embed-job.ts; README "Measuring answers").
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { embeddingsStatus } from "./embed-job.ts";

const Status = t.Object({
  configured: t.Boolean({ description: "Whether the server has an embeddings server (EMBEDDINGS_URL); without one, retrieval is lexical only." }),
  model: t.Optional(t.String({ description: "EMBEDDINGS_MODEL" })),
  documents: t.Integer({ description: "Published documents of the organisation." }),
  embedded: t.Integer({
    description: "Published documents whose current version has vectors for the model; the others count by their words only until the job reaches them.",
  }),
  refused: t.Integer({
    description:
      "Published documents whose current version the embeddings server refused as input (400, 413 or 422); " +
      "they count by their words only until edited or the model changes.",
  }),
  last_error: t.Optional(
    t.Object(
      { message: t.String(), at: t.String({ format: "date-time" }) },
      {
        description: "The last failure to embed this organisation's passages (a refused document is named); absent once a later run refuses or fails nothing.",
      },
    ),
  ),
});

export function embeddingsRoutes(deps: Pick<Deps, "config" | "db" | "now">) {
  return new Elysia({ name: "knowledge-embeddings" }).get(
    "/api/knowledge/embeddings",
    async ({ request }) => {
      const { orgId } = await requireMember(deps, request, "knowledge:view");
      return await embeddingsStatus(deps, orgId);
    },
    {
      response: Status,
      detail: { tags: ["Knowledge"], summary: "Progress of embedding the organisation's documents for search by meaning" },
    },
  );
}
