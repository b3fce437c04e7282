// Built-in family: the knowledge base (`search_docs`, `read_doc`), read-only, scope docs:read.
// `search_docs` asks the same in-memory index, with the same query (typos, joined and split words,
// the org's synonyms), as chat retrieval does (src/agents/pipeline/knowledge.ts), so a tool's
// caller and the chat find the same pages in the same order (docs/decisions.md "Knowledge retrieval").
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { StageTimer } from "../kit/stage-timer.ts";
import { Arg, defineTool } from "../tools/define.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { getDoc } from "./docs.ts";
import { orgIndex } from "./org-index.ts";
import { passagesOf, snippetOf } from "./passages.ts";
import { buildQuery } from "./query.ts";
import { queryLanguage } from "./query-language.ts";

export interface IndexHit {
  id: string;
  title: string;
  url?: string;
  snippet: string;
  score: number;
}

/** The org's best published pages for `text`, best first, as chat retrieval ranks them, each with a snippet around the query's words. */
export async function searchIndex(
  deps: Pick<Deps, "db" | "knowledge" | "passages" | "statements">,
  orgId: string,
  text: string,
  limit: number,
  timer?: StageTimer,
): Promise<IndexHit[]> {
  const { index, synonyms } = await orgIndex(deps, orgId);
  timer?.mark("index");
  const query = buildQuery(index, text, [], synonyms, await queryLanguage(deps, orgId, index, text));
  timer?.mark("query");
  const pages = query.terms.size === 0 ? [] : index.search(query.terms, limit, 1, query.terms, undefined, query.language);
  // Read before any await: the index may change once this call yields.
  const versions = pages.map((p) => ({ id: p.docId, title: p.title, updatedAt: new Date(index.versionOf(p.docId) ?? 0), indexed: index.textOf(p.docId) }));
  timer?.mark("search");
  if (pages.length === 0) return [];
  const passages = await passagesOf(deps, orgId, versions);
  const wanted = new Set([...query.terms.keys()].filter((t) => !t.includes(" ")));
  const hits = pages.map((p) => ({
    id: p.docId,
    title: p.title,
    ...(p.url ? { url: p.url } : {}),
    snippet: snippetOf(passages.get(p.docId) ?? [], wanted),
    // Four significant digits: BM25 scores are not bounded, only their order means something.
    score: Number(p.score.toPrecision(4)),
  }));
  timer?.mark("snippets");
  return hits;
}

const source = { kind: "builtin" as const, label: "Knowledge base" };
const str = { type: "string" };
/** outputSchema (2025-06-18+): what structuredContent holds. */
const hitSchema = {
  type: "object",
  properties: { id: str, title: str, url: str, snippet: str, score: { type: "number" } },
  required: ["id", "title", "snippet", "score"],
};
const searchOutput = { type: "object" as const, properties: { results: { type: "array", items: hitSchema } }, required: ["results"] };
const docOutput = {
  type: "object" as const,
  properties: { id: str, title: str, url: str, tags: { type: "array", items: str }, body: str, updated_at: { type: "string", format: "date-time" } },
  required: ["id", "title", "tags", "body", "updated_at"],
};

export const docsTools: ToolDefinition[] = [
  defineTool({
    name: "search_docs",
    description: "Search the organisation's published knowledge-base articles. Returns the best matches with a snippet; read one in full with read_doc.",
    input: Arg.object(
      {
        query: Arg.string({ minLength: 1, maxLength: 500, description: "What to look for, in words or as a question." }),
        limit: Arg.optional(Arg.integer({ minimum: 1, maximum: 20, description: "How many results (default 5)." })),
      },
      { additionalProperties: false },
    ),
    title: "Search the knowledge base",
    readOnly: true,
    outputSchema: searchOutput,
    scope: "docs:read",
    source,
    async execute(ctx, args) {
      return { value: { results: await searchIndex(ctx.deps, ctx.orgId, args.query, args.limit ?? 5, ctx.timer) } };
    },
  }),
  defineTool({
    name: "read_doc",
    description: "Read one published knowledge-base article in full, by the id search_docs returned.",
    input: Arg.object({ id: Arg.string({ description: "The article id." }) }, { additionalProperties: false }),
    title: "Read a knowledge-base article",
    readOnly: true,
    outputSchema: docOutput,
    scope: "docs:read",
    source,
    async execute(ctx, args) {
      const doc = await getDoc(ctx.deps, ctx.orgId, args.id, { publishedOnly: true });
      if (!doc) throw AppError.notFound(`No published article with id ${args.id}.`);
      return {
        value: { id: doc.id, title: doc.title, ...(doc.url ? { url: doc.url } : {}), tags: doc.tags, body: doc.body, updated_at: doc.updatedAt.toISOString() },
      };
    },
  }),
];
