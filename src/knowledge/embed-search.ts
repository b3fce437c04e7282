// Ranking by meaning, beside the lexical ranking (docs/decisions.md "Knowledge retrieval"): the
// org's passage vectors (written by src/knowledge/embed-job.ts) held in this process's memory per
// org, checked against the org's embeddings version before every question (one row by its key),
// and on a difference only the documents whose vectors changed are read again. A question's
// vector is compared with every passage of the pages the lexical index holds at the same version
// (cosine: the vectors are unit length), pages ranked by their best passage, those under
// EMBEDDINGS_MIN_SIMILARITY left out; then the two page rankings are fused by reciprocal rank
// fusion (Cormack, Clarke and Büttcher, SIGIR 2009: score = Σ 1 / (60 + rank)).
//
// The question's vector has a short deadline (EMBEDDINGS_QUESTION_TIMEOUT_MS); when it fails the
// question is answered lexically, and the next 30 s of questions do not ask, so a server that is
// down costs no turn its timeout.
import { and, eq, inArray } from "drizzle-orm";
import { knowledgeSettings, passageEmbeddings } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { messageOf } from "../errors.ts";
import type { OrgCacheKind } from "../kit/org-cache.ts";
import { decodeVector, dot, embedTexts } from "./embed-client.ts";
import type { LexicalIndex } from "./lexical.ts";
import type { RankedPage, RankedPassage } from "./index-types.ts";

export const HYBRID = {
  /** Reciprocal rank fusion's constant. */
  k: 60,
  /** Pages of each ranking fused. */
  depth: 20,
  /** After a failed question vector, questions are answered lexically for this long without asking. */
  pauseMs: 30_000,
  /** Vector bytes held across orgs before the least recently asked org's are dropped. */
  bytes: 256 * 1024 * 1024,
  /** Documents' rows read per statement. */
  batch: 200,
} as const;

interface DocVectors {
  version: number;
  passages: { text: string; headings: string[]; vector: Float32Array }[];
}

interface OrgVectors {
  docs: Map<string, DocVectors>;
  bytes: number;
}

/** The passage vectors in `deps.knowledge.orgs` (the per-org cache: src/kit/org-cache.ts). */
const VECTORS: OrgCacheKind<OrgVectors> = {
  name: "passage vectors",
  budget: HYBRID.bytes,
  empty: () => ({ docs: new Map(), bytes: 0 }),
  weight: (held) => held.bytes,
};

/**
 * The question's vector, or undefined when embeddings are not configured, are paused after a
 * failure, or fail now (logged without the question). Never rejects.
 */
export async function questionVector(deps: Pick<Deps, "config" | "knowledge" | "log">, question: string): Promise<Float32Array | undefined> {
  const config = deps.config.embeddings;
  if (!config) return undefined;
  const state = deps.knowledge.vectors;
  if (Date.now() < state.pausedUntil) return undefined;
  try {
    return (await embedTexts(config, [question], config.questionTimeoutMs))[0];
  } catch (error) {
    state.pausedUntil = Date.now() + HYBRID.pauseMs;
    deps.log.warn("question embedding failed; answering lexically", { error: messageOf(error), paused_ms: HYBRID.pauseMs });
    return undefined;
  }
}

async function refresh(deps: Pick<Deps, "db" | "config">, orgId: string, held: OrgVectors): Promise<void> {
  const model = deps.config.embeddings!.model;
  const current = await deps.db
    .select({ docId: passageEmbeddings.docId, docVersion: passageEmbeddings.docVersion })
    .from(passageEmbeddings)
    .where(and(eq(passageEmbeddings.orgId, orgId), eq(passageEmbeddings.model, model), eq(passageEmbeddings.seq, 0)));
  const wanted = new Map(current.map((r) => [r.docId, r.docVersion]));
  const drop = (id: string) => {
    const doc = held.docs.get(id);
    if (doc) for (const p of doc.passages) held.bytes -= p.vector.byteLength + p.text.length * 2;
    held.docs.delete(id);
  };
  for (const id of [...held.docs.keys()]) if (!wanted.has(id)) drop(id);
  const stale = [...wanted].filter(([id, v]) => held.docs.get(id)?.version !== v).map(([id]) => id);
  for (let i = 0; i < stale.length; i += HYBRID.batch) {
    const rows = await deps.db
      .select({
        docId: passageEmbeddings.docId,
        docVersion: passageEmbeddings.docVersion,
        seq: passageEmbeddings.seq,
        text: passageEmbeddings.text,
        headings: passageEmbeddings.headings,
        vector: passageEmbeddings.vector,
      })
      .from(passageEmbeddings)
      .where(and(eq(passageEmbeddings.orgId, orgId), eq(passageEmbeddings.model, model), inArray(passageEmbeddings.docId, stale.slice(i, i + HYBRID.batch))));
    const fresh = new Map<string, DocVectors>();
    for (const row of rows) {
      // One version per document and model is kept by the writer; should two meet, the newer wins.
      let doc = fresh.get(row.docId);
      if (!doc || row.docVersion > doc.version) fresh.set(row.docId, (doc = { version: row.docVersion, passages: [] }));
      if (row.docVersion === doc.version) doc.passages[row.seq] = { text: row.text, headings: row.headings, vector: decodeVector(row.vector) };
    }
    for (const [id, doc] of fresh) {
      drop(id);
      doc.passages = doc.passages.filter(Boolean);
      for (const p of doc.passages) held.bytes += p.vector.byteLength + p.text.length * 2;
      held.docs.set(id, doc);
    }
  }
}

/** The org's vectors as of this call (every write committed before it is in). */
async function orgVectors(deps: Pick<Deps, "db" | "config" | "knowledge">, orgId: string): Promise<OrgVectors> {
  const [row] = await deps.db.select({ version: knowledgeSettings.embeddingsVersion }).from(knowledgeSettings).where(eq(knowledgeSettings.orgId, orgId));
  const version = Number(row?.version ?? 0);
  // The version was read before the vectors the refresh reads: a write committed meanwhile makes the next question's version differ.
  return deps.knowledge.orgs.of(VECTORS).get(orgId, version, async (held) => {
    await refresh(deps, orgId, held);
    return version;
  });
}

export interface SemanticPage {
  docId: string;
  similarity: number;
  passage: RankedPassage;
}

/**
 * Pages by their best passage's similarity to `vector`, best first, those under the floor left out:
 * only pages indexed at the version their vectors were made from.
 */
export async function semanticPages(
  deps: Pick<Deps, "db" | "config" | "knowledge">,
  orgId: string,
  index: LexicalIndex,
  vector: Float32Array,
): Promise<SemanticPage[]> {
  const floor = deps.config.embeddings!.minSimilarity;
  const held = await orgVectors(deps, orgId);
  const out: SemanticPage[] = [];
  for (const [docId, doc] of held.docs) {
    if (index.versionOf(docId) !== doc.version) continue;
    let best = -2;
    let at = -1;
    doc.passages.forEach((p, i) => {
      if (p.vector.length !== vector.length) return;
      const s = dot(vector, p.vector);
      if (s > best) [best, at] = [s, i];
    });
    if (at >= 0 && best >= floor)
      out.push({ docId, similarity: best, passage: { text: doc.passages[at]!.text, headings: doc.passages[at]!.headings, score: best } });
  }
  return out.sort((a, b) => b.similarity - a.similarity || (a.docId < b.docId ? -1 : 1)).slice(0, HYBRID.depth);
}

/**
 * A fused page: the lexical page when the lexical ranking has it (its score, coverage and passage),
 * else the page with its best passage by meaning and a lexical score of 0.
 */
export interface FusedPage extends RankedPage {
  /** Found by meaning (in the semantic ranking, above the floor). */
  semantic: boolean;
  /** Found by words (in the lexical ranking). */
  lexical: boolean;
}

/**
 * Reciprocal rank fusion of the two rankings, best first; ties go to the lexical ranking's order,
 * then to the semantic one's. `pageOf` gives a page's title and URL from the lexical index.
 */
export function fuse(
  lexical: readonly RankedPage[],
  semantic: readonly SemanticPage[],
  pageOf: (id: string) => { title: string; url: string | null } | undefined,
): FusedPage[] {
  const scores = new Map<string, { rrf: number; lex: number; sem: number }>();
  lexical.forEach((p, i) => scores.set(p.docId, { rrf: 1 / (HYBRID.k + i + 1), lex: i, sem: Infinity }));
  semantic.forEach((p, i) => {
    const s = scores.get(p.docId) ?? { rrf: 0, lex: Infinity, sem: i };
    s.rrf += 1 / (HYBRID.k + i + 1);
    s.sem = i;
    scores.set(p.docId, s);
  });
  const byId = new Map(lexical.map((p) => [p.docId, p]));
  const bySem = new Map(semantic.map((p) => [p.docId, p]));
  const out: FusedPage[] = [];
  for (const [id] of [...scores].sort(([, a], [, b]) => b.rrf - a.rrf || a.lex - b.lex || a.sem - b.sem)) {
    const page = byId.get(id);
    if (page) out.push({ ...page, lexical: true, semantic: bySem.has(id) });
    else {
      const meta = pageOf(id);
      if (meta)
        out.push({ docId: id, title: meta.title, url: meta.url, score: 0, coverage: 0, passages: [bySem.get(id)!.passage], lexical: false, semantic: true });
    }
  }
  return out;
}
