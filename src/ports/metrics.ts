// What the service counts, as the features that count it see it (`deps.metrics`). The
// implementation (src/metrics/registry.ts) keeps Prometheus collectors; callers pass only bounded
// labels — a route template, a channel, an outcome, a provider kind — never an id, an email or
// anything a customer wrote (README "Metrics" lists every series and its labels).
export interface Metrics {
  /** One answered HTTP request: its method, route template (`/api/tickets/:number`, or `unmatched`) and status. */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** One tool call through the runtime, with the outcome of its audit row. */
  toolCall(channel: string, outcome: string, seconds: number): void;
  /** One model request: the provider kind, `ok` or the LlmError code, and the tokens it reported. */
  llmRequest(provider: string, outcome: string, seconds: number, tokens?: { input: number; output: number }): void;
  /** One speech request to the STT or TTS server (`stt`/`tts`): `ok` or the failure, seconds until its answer began. */
  speechRequest(kind: "stt" | "tts", outcome: string, seconds: number): void;
  /** One call to a connected MCP server. */
  connectorCall(outcome: string, seconds: number): void;
  /** One delivery attempt of an outbox row of `kind` (`sent`, `retry`, `failed`, …). */
  outboxAttempt(kind: string, outcome: string): void;
  /** A long-lived stream of `kind` opened; call the answer when it closes. */
  streamOpened(kind: string): () => void;
  /** The text exposition of every series (Prometheus text format 0.0.4). */
  exposition(): Promise<{ contentType: string; body: string }>;
}
