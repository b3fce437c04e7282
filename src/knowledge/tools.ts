// Built-in family: the knowledge base (`search_docs`, `read_doc`), read-only, scope docs:read.
import { getDoc, searchDocs } from "./docs.ts";
import { AppError } from "../errors.ts";
import type { ToolDefinition } from "../tools/types.ts";

const source = { kind: "builtin" as const, label: "Knowledge base" };
const str = { type: "string" };
/** outputSchema (2025-06-18+): what structuredContent holds. */
const hitSchema = { type: "object", properties: { id: str, title: str, url: str, snippet: str, score: { type: "number" } }, required: ["id", "title", "snippet", "score"] };
const searchOutput = { type: "object" as const, properties: { results: { type: "array", items: hitSchema } }, required: ["results"] };
const docOutput = {
  type: "object" as const,
  properties: { id: str, title: str, url: str, tags: { type: "array", items: str }, body: str, updated_at: { type: "string", format: "date-time" } },
  required: ["id", "title", "tags", "body", "updated_at"],
};

export const docsTools: ToolDefinition[] = [
  {
    name: "search_docs",
    description: "Search the organisation's published knowledge-base articles. Returns the best matches with a snippet; read one in full with read_doc.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, maxLength: 500, description: "What to look for, in words or as a question." },
        limit: { type: "integer", minimum: 1, maximum: 20, description: "How many results (default 5)." },
      },
      required: ["query"],
      additionalProperties: false,
    },
    title: "Search the knowledge base", destructive: false, readOnly: true, idempotent: true, openWorld: false,
    outputSchema: searchOutput,
    scope: "docs:read",
    source,
    defaultEnabled: true,
    async execute(ctx, args) {
      const hits = await searchDocs(ctx.deps, ctx.orgId, args.query as string, (args.limit as number | undefined) ?? 5, { timer: ctx.timer });
      return { value: { results: hits.map(({ updatedAt: _, ...hit }) => hit) } };
    },
  },
  {
    name: "read_doc",
    description: "Read one published knowledge-base article in full, by the id search_docs returned.",
    inputSchema: {
      type: "object",
      properties: { id: { type: "string", description: "The article id." } },
      required: ["id"],
      additionalProperties: false,
    },
    title: "Read a knowledge-base article", destructive: false, readOnly: true, idempotent: true, openWorld: false,
    outputSchema: docOutput,
    scope: "docs:read",
    source,
    defaultEnabled: true,
    async execute(ctx, args) {
      const doc = await getDoc(ctx.deps, ctx.orgId, args.id as string, { publishedOnly: true });
      if (!doc) throw AppError.notFound(`No published article with id ${String(args.id)}.`);
      return { value: { id: doc.id, title: doc.title, ...(doc.url ? { url: doc.url } : {}), tags: doc.tags, body: doc.body, updated_at: doc.updatedAt.toISOString() } };
    },
  },
];
