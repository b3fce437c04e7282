// The one error type of the LLM adapters (see types.ts).
/**
 * A provider failure. `retryable` says whether the same request may succeed later (429, 5xx,
 * Anthropic 529/overloaded, a network error or a cut stream); the adapters have already retried
 * once when it was safe, so the pipeline should not retry again — it ends the answer with an
 * error record (or a fallback) instead. `status` is the HTTP status when there was one.
 * The message never carries the API key or the customer's text.
 */
export class LlmError extends Error {
  override name = "LlmError";
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** A short machine code: timeout, http_error, stream_error, stream_cut, bad_response, blocked_url, network. */
    readonly code: string = "llm_failed",
  ) {
    super(message);
  }
}
