// A fake embeddings server on loopback speaking the OpenAI wire format (docs/interface.md J):
//   POST {baseUrl}/embeddings  {model, input: string | string[]}  →  {object: "list", data: [{object: "embedding", index, embedding}], model, usage}
// Its vectors are a hashed bag of "concepts": each word is lower-cased, mapped through `concepts`
// (so "reimbursement" and "refund" can be the same thing) and hashed into one of DIMS
// dimensions; a few stop words are left out. Texts sharing concepts are close; texts sharing none
// are orthogonal. It records every input, and `fail` makes it answer 500 to everything.
import { createHash } from "node:crypto";

export const FAKE_EMBEDDING_DIMS = 256;

const STOP = new Set([
  "a",
  "an",
  "the",
  "i",
  "you",
  "we",
  "my",
  "your",
  "our",
  "to",
  "of",
  "for",
  "in",
  "on",
  "by",
  "and",
  "or",
  "is",
  "are",
  "was",
  "were",
  "be",
  "can",
  "do",
  "does",
  "how",
  "what",
  "if",
  "it",
  "get",
  "with",
  "within",
  "at",
  "this",
  "that",
]);

export interface FakeEmbeddings {
  baseUrl: string;
  /** Every input received, in order. */
  inputs: string[];
  /** Every request's headers and model. */
  requests: { model: unknown; authorization: string | null; count: number }[];
  fail: boolean;
  /** An input containing this word is refused with 400, as OpenAI refuses one over the model's context length. */
  refuseWord?: string;
  close(): void;
}

export function fakeVector(text: string, concepts: Record<string, string>): number[] {
  const v = new Array<number>(FAKE_EMBEDDING_DIMS).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (STOP.has(raw)) continue;
    const word = concepts[raw] ?? raw;
    const slot = createHash("sha256").update(word).digest().readUInt32BE(0) % FAKE_EMBEDDING_DIMS;
    v[slot]! += 1;
  }
  return v;
}

export function fakeEmbeddings(concepts: Record<string, string> = {}): FakeEmbeddings {
  const state: FakeEmbeddings = { baseUrl: "", inputs: [], requests: [], fail: false, close: () => server.stop(true) };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    development: false,
    async fetch(request) {
      const url = new URL(request.url);
      if (request.method !== "POST" || url.pathname !== "/v1/embeddings") return Response.json({ error: { message: "not found" } }, { status: 404 });
      if (state.fail) return Response.json({ error: { message: "the model is not loaded", type: "server_error" } }, { status: 500 });
      const body = (await request.json()) as { model?: unknown; input?: unknown };
      const input = typeof body.input === "string" ? [body.input] : (body.input as string[]);
      state.requests.push({ model: body.model, authorization: request.headers.get("authorization"), count: input.length });
      if (state.refuseWord && input.some((text) => text.includes(state.refuseWord!)))
        return Response.json(
          { error: { message: "This model's maximum context length is 8192 tokens.", type: "invalid_request_error", code: "context_length_exceeded" } },
          { status: 400 },
        );
      state.inputs.push(...input);
      return Response.json({
        object: "list",
        data: input.map((text, index) => ({ object: "embedding", index, embedding: fakeVector(text, concepts) })),
        model: body.model,
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
    },
  });
  state.baseUrl = `http://127.0.0.1:${server.port}/v1`;
  return state;
}
