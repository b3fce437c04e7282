// Embedding the org's passages in the background (docs/decisions.md "Knowledge retrieval"), a
// periodic job (src/compose.ts `jobs`): each run takes the published documents whose current
// version has no vectors for the configured model — new, edited (by a person or a knowledge
// source's sync: both go through src/knowledge/docs.ts, which moves `updated_at`), or all of them
// after a change of model — oldest change first, cuts what the lexical index keeps of them (the
// body without its boilerplate lines) into passages (src/knowledge/embed-passages.ts), reuses the vector of every passage whose text the org has
// embedded before (by its hash), and sends the rest in batches of EMBEDDINGS_BATCH. A document's
// rows are written in one transaction, which deletes its other versions' and models' rows and
// increments the org's embeddings version (so every instance reads the new rows before its next
// question: src/knowledge/embed-search.ts). Deleting a document deletes its rows (a foreign key).
// A failure is recorded on the org (GET /api/knowledge/embeddings) and thrown, so the job sits
// out its next ticks (src/jobs.ts `runJobs`); chat turns never wait for any of it. A document
// whose input the server refuses (EmbeddingsError `refused`: 400, 413, 422) is different: sending
// it again cannot help, and as the oldest change it would come first in every run and hold up
// every org's queue. Its version is marked refused for the model, the org's status says which
// document, and the run goes on; an edit (a new version) or another model tries it again.
import { and, asc, eq, inArray, ne, or, sql } from "drizzle-orm";
import { docs, knowledgeSettings, passageEmbeddings } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { messageOf } from "../errors.ts";
import { EmbeddingsError, embedTexts, encodeVector } from "./embed-client.ts";
import { type EmbedPassage, embedPassagesOf } from "./embed-passages.ts";
import { orgIndex } from "./org-index.ts";

export const EMBED_JOB = {
  everyMs: 5_000,
  /** Documents taken per run (their bodies are read whole). */
  docs: 50,
  /** Requests to the embeddings server per run, at most. */
  requests: 8,
  /** Deadline of one request. */
  timeoutMs: 60_000,
} as const;

/** A document's version as the vectors record it: its `updated_at` in whole milliseconds (what a JavaScript Date of it holds). */
const versionSql = sql`floor(extract(epoch from "docs"."updated_at") * 1000)::bigint`;

/**
 * Whether the document of the outer query has vectors of `model` for its current version (names
 * qualified: drizzle leaves a one-table select's columns bare).
 */
const hasVectors = (model: string) =>
  sql`exists (select 1 from "passage_embeddings" pe where pe."doc_id" = "docs"."id" and pe."doc_version" = ${versionSql} and pe."model" = ${model})`;

/** Whether the server refused the current version's input for `model`. */
const wasRefused = (model: string) => sql`("docs"."embed_refused_model" = ${model} and "docs"."embed_refused_version" = ${versionSql})`;

interface Pending {
  id: string;
  orgId: string;
  title: string;
  body: string;
  updatedAt: Date;
}

async function record(deps: Pick<Deps, "db" | "now">, orgId: string, error: string | null) {
  const at = error === null ? null : deps.now();
  await deps.db
    .insert(knowledgeSettings)
    .values({ orgId, embeddingsError: error, embeddingsErrorAt: at })
    .onConflictDoUpdate({ target: knowledgeSettings.orgId, set: { embeddingsError: error, embeddingsErrorAt: at } });
}

/** Passes over this version of the document for `model` (its `updated_at` is left as it is: it is the version). */
async function markRefused(deps: Pick<Deps, "db">, model: string, doc: Pending) {
  await deps.db
    .update(docs)
    .set({ embedRefusedVersion: doc.updatedAt.getTime(), embedRefusedModel: model })
    .where(and(eq(docs.id, doc.id), sql`${versionSql} = ${doc.updatedAt.getTime()}`)); // not if edited meanwhile
}

/** Writes one document's vectors (one transaction). */
async function write(deps: Pick<Deps, "db">, model: string, doc: Pending, passages: EmbedPassage[], vectors: Map<string, { vector: string; dims: number }>) {
  const version = doc.updatedAt.getTime();
  await deps.db.transaction(async (tx) => {
    await tx
      .delete(passageEmbeddings)
      .where(and(eq(passageEmbeddings.docId, doc.id), or(ne(passageEmbeddings.docVersion, version), ne(passageEmbeddings.model, model))));
    await tx
      .insert(passageEmbeddings)
      .values(
        passages.map((p) => ({
          orgId: doc.orgId,
          docId: doc.id,
          docVersion: version,
          seq: p.seq,
          hash: p.hash,
          model,
          text: p.text,
          headings: p.headings,
          ...vectors.get(p.hash)!,
        })),
      )
      .onConflictDoNothing();
    await tx
      .insert(knowledgeSettings)
      .values({ orgId: doc.orgId, embeddingsVersion: 1 })
      .onConflictDoUpdate({ target: knowledgeSettings.orgId, set: { embeddingsVersion: sql`${knowledgeSettings.embeddingsVersion} + 1` } });
  });
}

/** One run of the job: how many documents and passages it embedded (0 without EMBEDDINGS_URL). */
export async function embedPendingDocs(
  deps: Pick<Deps, "db" | "config" | "now" | "knowledge" | "statements">,
  signal?: AbortSignal,
): Promise<{ docs: number; passages: number }> {
  const config = deps.config.embeddings;
  if (!config) return { docs: 0, passages: 0 };
  const pending: Pending[] = await deps.db
    .select({ id: docs.id, orgId: docs.orgId, title: docs.title, body: docs.body, updatedAt: docs.updatedAt })
    .from(docs)
    .where(and(eq(docs.status, "published"), sql`not ${hasVectors(config.model)}`, sql`not coalesce(${wasRefused(config.model)}, false)`))
    .orderBy(asc(docs.updatedAt), asc(docs.id))
    .limit(EMBED_JOB.docs);
  const byOrg = new Map<string, Pending[]>();
  for (const doc of pending) (byOrg.get(doc.orgId) ?? byOrg.set(doc.orgId, []).get(doc.orgId)!).push(doc);
  let requests = 0;
  const done = { docs: 0, passages: 0 };
  for (const [orgId, list] of byOrg) {
    let refusedHere = 0;
    try {
      // What the lexical index keeps of each page: its body without the lines repeated across the
      // org's pages (src/knowledge/boilerplate.ts), so a footer is no more found by meaning than by
      // words. The index is the org's in this process (built on first use, exact after edits); a
      // page it holds at another version (edited since this run read it) is cut from its body as read.
      const { index } = await orgIndex(deps, orgId);
      const keptOf = (doc: Pending) => (index.versionOf(doc.id) === doc.updatedAt.getTime() ? (index.textOf(doc.id)?.text ?? doc.body) : doc.body);
      const cut = list.map((doc) => ({ doc, passages: embedPassagesOf(doc.title, keptOf(doc)) }));
      // Vectors of passages the org has embedded before with this model (an edit changes a few sections).
      const hashes = [...new Set(cut.flatMap((c) => c.passages.map((p) => p.hash)))];
      const known = new Map<string, { vector: string; dims: number }>();
      for (let i = 0; i < hashes.length; i += 500) {
        const rows = await deps.db
          .select({ hash: passageEmbeddings.hash, vector: passageEmbeddings.vector, dims: passageEmbeddings.dims })
          .from(passageEmbeddings)
          .where(and(eq(passageEmbeddings.orgId, orgId), eq(passageEmbeddings.model, config.model), inArray(passageEmbeddings.hash, hashes.slice(i, i + 500))));
        for (const row of rows) known.set(row.hash, { vector: row.vector, dims: row.dims });
      }
      for (const { doc, passages } of cut) {
        const missing = [...new Map(passages.filter((p) => !known.has(p.hash)).map((p) => [p.hash, p])).values()];
        try {
          for (let i = 0; i < missing.length; i += config.batch) {
            if (requests >= EMBED_JOB.requests) return done;
            requests++;
            const batch = missing.slice(i, i + config.batch);
            const vectors = await embedTexts(
              config,
              batch.map((p) => p.input),
              EMBED_JOB.timeoutMs,
              signal,
            );
            batch.forEach((p, j) => known.set(p.hash, { vector: encodeVector(vectors[j]!), dims: vectors[j]!.length }));
            done.passages += batch.length;
          }
        } catch (error) {
          if (!(error instanceof EmbeddingsError && error.refused)) throw error;
          await markRefused(deps, config.model, doc);
          await record(deps, orgId, `“${doc.title.slice(0, 100)}” was not embedded: ${error.message}`.slice(0, 500));
          refusedHere++;
          continue;
        }
        await write(deps, config.model, doc, passages, known);
        done.docs++;
      }
      if (refusedHere === 0)
        await deps.db
          .update(knowledgeSettings)
          .set({ embeddingsError: null, embeddingsErrorAt: null })
          .where(and(eq(knowledgeSettings.orgId, orgId), sql`${knowledgeSettings.embeddingsError} is not null`));
    } catch (error) {
      // What the embeddings server said is the org's to read; anything else (a database error names
      // its statement and parameters, passage text included) stays in the server's log, where the
      // job runner writes the thrown error.
      const told = error instanceof EmbeddingsError ? messageOf(error) : "an internal error stopped the run; the server's log has the details";
      await record(deps, orgId, told.slice(0, 500));
      throw error;
    }
  }
  return done;
}

export interface EmbeddingsStatus {
  configured: boolean;
  model?: string;
  /** Published documents. */
  documents: number;
  /** Published documents whose current version has vectors for the model. */
  embedded: number;
  /** Published documents whose current version the embeddings server refused as input (counted by their words only). */
  refused: number;
  last_error?: { message: string; at: string };
}

/** The org's progress (GET /api/knowledge/embeddings). */
export async function embeddingsStatus(deps: Pick<Deps, "db" | "config">, orgId: string): Promise<EmbeddingsStatus> {
  const model = deps.config.embeddings?.model;
  const embedded = model ? sql<number>`count(*) filter (where ${hasVectors(model)})` : sql<number>`0`;
  const refused = model ? sql<number>`count(*) filter (where ${wasRefused(model)} and not ${hasVectors(model)})` : sql<number>`0`;
  const [counts] = await deps.db
    .select({ documents: sql<number>`count(*)`, embedded, refused })
    .from(docs)
    .where(and(eq(docs.orgId, orgId), eq(docs.status, "published")));
  const [state] = await deps.db
    .select({ error: knowledgeSettings.embeddingsError, at: knowledgeSettings.embeddingsErrorAt })
    .from(knowledgeSettings)
    .where(eq(knowledgeSettings.orgId, orgId));
  return {
    configured: model !== undefined,
    ...(model ? { model } : {}),
    documents: Number(counts?.documents ?? 0),
    embedded: Number(counts?.embedded ?? 0),
    refused: Number(counts?.refused ?? 0),
    ...(state?.error && state.at ? { last_error: { message: state.error, at: state.at.toISOString() } } : {}),
  };
}
