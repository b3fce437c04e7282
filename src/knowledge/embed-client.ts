// The embeddings adapter (docs/interface.md J): `POST {EMBEDDINGS_URL}/embeddings` with
// `{model, input: [..], dimensions?}`, answered `{data: [{index, embedding}], model, usage}`.
// The URL is the operator's (src/config/embeddings.ts), trusted like LLM_BASE_URL
// (docs/decisions.md "Which model answers"): fetched directly, never following a redirect. Every
// call has a total deadline; the answer is read up to EMBED_LIMITS.responseBytes and checked
// whole (one vector per input, by `index`, all of one length, finite numbers) before any of it is
// used. Vectors come back at unit length, so cosine similarity is a dot product.
import type { EmbeddingsConfig } from "../config/embeddings.ts";
import { messageOf } from "../errors.ts";
import { RedirectRefusedError, readCapped } from "../net/guard.ts";

export const EMBED_LIMITS = {
  /** Largest answer read: 2,048 inputs of 1,536 numbers printed at about 20 characters each fit. */
  responseBytes: 64 * 1024 * 1024,
  /** Most numbers in one vector. */
  dims: 8192,
  /** Characters of one input sent (a passage is at most 1,200 plus its title and headings). */
  inputChars: 4000,
  /** An error answer's text kept for the status. */
  errorChars: 300,
} as const;

export class EmbeddingsError extends Error {
  override name = "EmbeddingsError";
  /**
   * The server refused this input (400, 413 or 422: too long, unsupported characters, …): sending it
   * again will not help, unlike a server that is down, overloaded (429) or misconfigured (401, 403).
   */
  readonly refused: boolean;
  constructor(message: string, refused = false) {
    super(message);
    this.refused = refused;
  }
}

const REFUSED_INPUT = new Set([400, 413, 422]);

function unit(values: readonly unknown[]): Float32Array {
  const out = new Float32Array(values.length);
  let norm = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== "number" || !Number.isFinite(v))
      throw new EmbeddingsError("the embeddings server answered a vector with a value that is not a finite number");
    out[i] = v;
    norm += v * v;
  }
  if (norm === 0) return out;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < out.length; i++) out[i]! *= scale;
  return out;
}

/** The vectors of `inputs`, in their order, at unit length. Throws EmbeddingsError saying what went wrong. */
export async function embedTexts(config: EmbeddingsConfig, inputs: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<Float32Array[]> {
  if (inputs.length === 0) return [];
  const body = JSON.stringify({
    model: config.model,
    input: inputs.map((t) => t.slice(0, EMBED_LIMITS.inputChars)),
    ...(config.dimensions ? { dimensions: config.dimensions } : {}),
  });
  const deadline = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])]);
  let text: string;
  try {
    const response = await fetch(`${config.baseUrl}/embeddings`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "user-agent": "svc-agents/1.0",
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body,
      signal: deadline,
      redirect: "manual",
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      throw new RedirectRefusedError(response.status, response.headers.get("location"));
    }
    text = new TextDecoder().decode(await readCapped(response, EMBED_LIMITS.responseBytes));
    if (!response.ok)
      throw new EmbeddingsError(
        `the embeddings server answered ${response.status}: ${text.replace(/\s+/g, " ").slice(0, EMBED_LIMITS.errorChars)}`,
        REFUSED_INPUT.has(response.status),
      );
  } catch (error) {
    if (error instanceof EmbeddingsError) throw error;
    if (deadline.aborted && !signal?.aborted) throw new EmbeddingsError(`the embeddings server gave no answer within ${timeoutMs} ms`);
    throw new EmbeddingsError(`the embeddings server could not be reached: ${messageOf(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new EmbeddingsError("the embeddings server answered something other than JSON");
  }
  const data = (parsed as { data?: unknown })?.data;
  if (!Array.isArray(data) || data.length !== inputs.length)
    throw new EmbeddingsError(`the embeddings server answered ${Array.isArray(data) ? data.length : "no"} vectors for ${inputs.length} inputs`);
  const out: (Float32Array | undefined)[] = new Array(inputs.length);
  let dims: number | undefined;
  data.forEach((item, i) => {
    const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    // `index` says which input a vector is for; a server that leaves it out answers in order.
    const at = index === undefined ? i : index;
    if (typeof at !== "number" || !Number.isInteger(at) || at < 0 || at >= inputs.length || out[at])
      throw new EmbeddingsError("the embeddings server answered a vector with a missing or repeated index");
    if (!Array.isArray(embedding) || embedding.length === 0 || embedding.length > EMBED_LIMITS.dims)
      throw new EmbeddingsError(
        `the embeddings server answered a vector that is not a list of 1 to ${EMBED_LIMITS.dims} numbers (base64 vectors are not asked for)`,
      );
    if (dims !== undefined && embedding.length !== dims) throw new EmbeddingsError("the embeddings server answered vectors of different lengths");
    dims = embedding.length;
    out[at] = unit(embedding);
  });
  return out as Float32Array[];
}

/** A vector as stored (passage_embeddings.vector): float32 little-endian bytes, base64. */
export function encodeVector(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64");
}

export function decodeVector(s: string): Float32Array {
  const bytes = Buffer.from(s, "base64");
  const copy = new Uint8Array(bytes.byteLength - (bytes.byteLength % 4));
  copy.set(bytes.subarray(0, copy.byteLength));
  return new Float32Array(copy.buffer);
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
