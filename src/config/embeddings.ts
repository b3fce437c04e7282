// The embeddings part of the configuration (src/config.ts calls it): the operator's
// OpenAI-compatible embeddings server (docs/interface.md J; README "Measuring answers"). With
// EMBEDDINGS_URL set, the org's passages are embedded in the background and questions are ranked
// by meaning beside their words (docs/decisions.md "Knowledge retrieval"). The URL is the
// operator's, trusted like LLM_BASE_URL. Unset: retrieval is lexical only, exactly as without it.
import { ConfigError, type Env, integer } from "./read.ts";

export interface EmbeddingsConfig {
  /** EMBEDDINGS_URL: the API root; `/embeddings` is appended (e.g. http://127.0.0.1:11434/v1). */
  baseUrl: string;
  /** EMBEDDINGS_MODEL: required with EMBEDDINGS_URL (e.g. text-embedding-3-small, nomic-embed-text). */
  model: string;
  /** EMBEDDINGS_API_KEY: sent as `Authorization: Bearer`; optional (a local server needs none). */
  apiKey?: string;
  /** EMBEDDINGS_DIMENSIONS: sent as `dimensions` (models that can shorten their vectors); unset: the model's own. */
  dimensions?: number;
  /** EMBEDDINGS_BATCH: passages per request. Default 64. */
  batch: number;
  /** EMBEDDINGS_QUESTION_TIMEOUT_MS: how long a chat turn waits for its question's vector before answering lexically. Default 1500. */
  questionTimeoutMs: number;
  /** EMBEDDINGS_MIN_SIMILARITY: least cosine similarity for a page found by meaning alone (no word in common). Default 0.5. */
  minSimilarity: number;
}

function similarity(env: Env): number {
  const raw = env.EMBEDDINGS_MIN_SIMILARITY;
  if (raw === undefined || raw === "") return 0.5;
  if (!/^(0(\.\d{1,4})?|1(\.0{1,4})?)$/.test(raw))
    throw new ConfigError("EMBEDDINGS_MIN_SIMILARITY", `must be a number from 0 to 1 such as 0.5 (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

export function embeddingsConfig(env: Env): { embeddings?: EmbeddingsConfig } {
  const raw = env.EMBEDDINGS_URL;
  if (!raw) return {};
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {}
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password || url.hash || url.search)
    throw new ConfigError(
      "EMBEDDINGS_URL",
      `must be an absolute http(s) URL with no credentials, query or fragment, e.g. http://127.0.0.1:11434/v1 (got ${JSON.stringify(raw)})`,
    );
  const model = env.EMBEDDINGS_MODEL ?? "";
  if (model === "") throw new ConfigError("EMBEDDINGS_MODEL", "is required when EMBEDDINGS_URL is set (e.g. text-embedding-3-small, nomic-embed-text)");
  if (model.length > 200) throw new ConfigError("EMBEDDINGS_MODEL", "must be at most 200 characters");
  return {
    embeddings: {
      baseUrl: url.href.replace(/\/+$/, ""),
      model,
      apiKey: env.EMBEDDINGS_API_KEY || undefined,
      dimensions: env.EMBEDDINGS_DIMENSIONS ? integer(env, "EMBEDDINGS_DIMENSIONS", 0, 1, 8192) : undefined,
      batch: integer(env, "EMBEDDINGS_BATCH", 64, 1, 2048),
      questionTimeoutMs: integer(env, "EMBEDDINGS_QUESTION_TIMEOUT_MS", 1500, 50, 60_000),
      minSimilarity: similarity(env),
    },
  };
}
