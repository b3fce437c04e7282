// The service's metrics, kept by prom-client in a registry of their own per process (or per test
// app): no hand-written exposition. Labels are bounded by construction — method, route template,
// status class, channel, outcome, provider kind, outbox kind, stream kind — so a scrape's size does
// not grow with traffic, and no id, address or customer text is ever a label value.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Metrics } from "../ports/metrics.ts";

/** What the outbox holds, read from the database at scrape time (src/outbox/stats.ts). */
export interface OutboxDepth {
  kind: string;
  /** Rows waiting to be delivered (pending, due or not). */
  waiting: number;
  /** Seconds since the oldest due row became due; 0 when none is due. */
  oldestDueSeconds: number;
}

export interface MetricsOptions {
  /** Read at every scrape; absent in tests that do not need it. */
  outboxDepth?: () => Promise<OutboxDepth[]>;
  /** Adds the process's own series (CPU, memory, handles, event loop): the server does, tests need not. */
  processMetrics?: boolean;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LLM_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];

/** `2xx`, `4xx`…: statuses are grouped so the series stay few. */
export function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : "other";
}

/** Only the methods HTTP defines become label values; anything else is `other`. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry, prefix: "svc_" });
  const registers = [registry];
  const http = new Histogram({
    name: "svc_http_request_duration_seconds",
    help: "HTTP requests answered, by method, route template and status class.",
    labelNames: ["method", "route", "status"],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const tools = new Histogram({
    name: "svc_tool_call_duration_seconds",
    help: "Tool calls through the tool runtime, by channel and audit outcome.",
    labelNames: ["channel", "outcome"],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const llm = new Histogram({
    name: "svc_llm_request_duration_seconds",
    help: "Language-model requests, by provider kind and outcome (ok or the error code).",
    labelNames: ["provider", "outcome"],
    buckets: LLM_BUCKETS,
    registers,
  });
  const llmTokens = new Counter({
    name: "svc_llm_tokens_total",
    help: "Tokens the model servers reported, by provider kind and direction.",
    labelNames: ["provider", "direction"],
    registers,
  });
  const speech = new Histogram({
    name: "svc_speech_request_duration_seconds",
    help: "Speech-to-text and text-to-speech requests to the speech servers, by kind (stt, tts) and outcome (ok or the failure).",
    labelNames: ["kind", "outcome"],
    buckets: LLM_BUCKETS,
    registers,
  });
  const connectors = new Histogram({
    name: "svc_connector_call_duration_seconds",
    help: "Calls to connected MCP servers, by outcome.",
    labelNames: ["outcome"],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const attempts = new Counter({
    name: "svc_outbox_attempts_total",
    help: "Outbox delivery attempts, by kind and outcome.",
    labelNames: ["kind", "outcome"],
    registers,
  });
  const streams = new Gauge({ name: "svc_open_streams", help: "Long-lived response streams open now, by kind.", labelNames: ["kind"], registers });
  const depth = options.outboxDepth;
  if (depth) {
    // One database read serves both gauges of a scrape (prom-client collects them concurrently).
    let reading: Promise<OutboxDepth[]> | null = null;
    const read = () => (reading ??= depth().finally(() => setTimeout(() => (reading = null), 0)));
    new Gauge({
      name: "svc_outbox_waiting",
      help: "Outbox rows waiting to be delivered, by kind (read from the database at scrape).",
      labelNames: ["kind"],
      registers,
      async collect() {
        this.reset();
        for (const row of await read()) this.set({ kind: row.kind }, row.waiting);
      },
    });
    new Gauge({
      name: "svc_outbox_oldest_due_seconds",
      help: "Age of the oldest due outbox row, by kind (0 when none is due).",
      labelNames: ["kind"],
      registers,
      async collect() {
        this.reset();
        for (const row of await read()) this.set({ kind: row.kind }, row.oldestDueSeconds);
      },
    });
  }
  return {
    httpRequest(method, route, status, seconds) {
      http.observe({ method: METHODS.has(method) ? method : "other", route, status: statusClass(status) }, seconds);
    },
    toolCall(channel, outcome, seconds) {
      tools.observe({ channel, outcome }, seconds);
    },
    llmRequest(provider, outcome, seconds, tokens) {
      llm.observe({ provider, outcome }, seconds);
      if (tokens) {
        llmTokens.inc({ provider, direction: "input" }, tokens.input);
        llmTokens.inc({ provider, direction: "output" }, tokens.output);
      }
    },
    speechRequest(kind, outcome, seconds) {
      speech.observe({ kind, outcome }, seconds);
    },
    connectorCall(outcome, seconds) {
      connectors.observe({ outcome }, seconds);
    },
    outboxAttempt(kind, outcome) {
      attempts.inc({ kind, outcome });
    },
    streamOpened(kind) {
      streams.inc({ kind });
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        streams.dec({ kind });
      };
    },
    async exposition() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
