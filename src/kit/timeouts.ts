// Deadlines. Outbound work runs under an AbortSignal (AbortSignal.timeout or a caller's signal);
// when it fires, fetch and our readers reject with a DOMException named TimeoutError (the
// timeout fired) or AbortError (a composed or caller signal aborted). Both mean "no answer in time".

/** Whether `error` is a deadline firing rather than a failure of the other side. */
export function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
}
