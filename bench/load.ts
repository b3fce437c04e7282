// A small closed-loop HTTP load generator. bench/run.ts runs it as its own process (so it never
// shares a JavaScript thread with a server under test) with one JSON argument (LoadOptions) and
// reads one JSON line (LoadResult) from its stdout.
//
// Closed loop: each of `connections` workers sends a request, waits for the whole response, and
// sends the next, so at most `connections` requests are in flight and req/s is what the server
// sustains at that concurrency. Bun's fetch keeps connections alive and reuses them.
// Caveat of closed loops: a stalled server also stalls the generator, so latencies under
// overload look better than an open-loop (fixed arrival rate) tool would report. With
// LoadOptions.rate set it runs the open loop of bench/open-loop.ts instead.
import { messageOf } from "../src/errors.ts";

export interface LoadOptions {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** A response with another status counts as an error, not as a latency sample. */
  expectStatus: number;
  connections: number;
  /** Extra headers per connection: connection i adds connectionHeaders[i % length] (e.g. its own bearer token). */
  connectionHeaders?: Record<string, string>[];
  /** A response whose body contains one of these counts as an error (e.g. a JSON-RPC error answered with 200). */
  failIfBodyIncludes?: string[];
  /**
   * OAuth refresh chains: connection i starts from refreshTokens[i] and POSTs
   * grant_type=refresh_token with it (form-encoded, public client `clientId`), then sends the
   * refresh_token of each answer with its next request, so every request uses a fresh token.
   * `body` is ignored. A chain refused by the server (4xx) stops that connection.
   */
  refreshChain?: { clientId: string; refreshTokens: string[] };
  /**
   * Open loop instead of the closed one: this many requests per second, sent on schedule whatever
   * the answers do, latency from each scheduled send time (bench/open-loop.ts). `connections` is
   * then unused.
   */
  rate?: number;
  /** A sample ends at the answer's first body byte (time to first byte of a stream); the body is still read to its end. */
  firstByte?: boolean;
  /** Read each answer's Server-Timing header (the server runs with SERVER_TIMING=1) into `stages`. */
  serverTiming?: boolean;
  /** Requests sent before measuring starts: lets the JIT, the connection pool and the server warm up. */
  warmupMs: number;
  durationMs: number;
}

export interface LoadResult {
  /** Successful responses completed in the measured window. */
  requests: number;
  /** Failed requests (network errors or unexpected status) in the measured window. */
  errors: number;
  /** The first error seen, to say what went wrong. */
  firstError?: string;
  /** Length of the measured window: from its start until the last request in flight finished. */
  elapsedMs: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Open loop only: the offered rate, requests sent, and the worst lag of a send behind its schedule. */
  offeredRps?: number;
  sent?: number;
  scheduleLagMs?: number;
  /** Mean server-side milliseconds per stage of the measured successful answers (Server-Timing), when asked for. */
  stages?: Record<string, number>;
}

/** `name;dur=1.2, other;dur=3` (W3C Server-Timing), summed into `into`; entries without dur are skipped. */
export function addServerTiming(header: string | null, into: Map<string, number>): void {
  for (const entry of header?.split(",") ?? []) {
    const [name, ...params] = entry.trim().split(";");
    const dur = params.map((p) => p.trim()).find((p) => p.startsWith("dur="));
    if (name && dur) into.set(name, (into.get(name) ?? 0) + Number(dur.slice(4)));
  }
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const begin = performance.now();
  const measureFrom = begin + o.warmupMs;
  const until = measureFrom + o.durationMs;
  const samples: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const markers = o.failIfBodyIncludes ?? [];
  const stages = new Map<string, number>();
  if (o.refreshChain && o.refreshChain.refreshTokens.length < o.connections)
    throw new Error(`refreshChain: ${o.connections} connections need as many refresh tokens (got ${o.refreshChain.refreshTokens.length})`);

  const worker = async (index: number) => {
    const extra = o.connectionHeaders?.length ? o.connectionHeaders[index % o.connectionHeaders.length] : undefined;
    const init: RequestInit = { method: o.method, headers: extra ? { ...o.headers, ...extra } : o.headers, body: o.body };
    let refreshToken = o.refreshChain?.refreshTokens[index];
    for (;;) {
      const start = performance.now();
      if (start >= until) return;
      let failure: string | undefined;
      let chainBroken = false;
      let timing: string | null = null;
      let firstByteAt: number | undefined;
      try {
        if (o.refreshChain && refreshToken !== undefined)
          init.body = new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: o.refreshChain.clientId }).toString();
        const res = await fetch(o.url, init);
        timing = res.headers.get("server-timing");
        // Read the body to the end, or the connection cannot be reused for the next request.
        if (o.refreshChain) {
          const text = await res.text();
          if (res.status === o.expectStatus) refreshToken = (JSON.parse(text) as { refresh_token: string }).refresh_token;
          else {
            failure = `status ${res.status}, expected ${o.expectStatus}: ${text.slice(0, 200)}`;
            chainBroken = res.status >= 400 && res.status < 500;
          }
        } else if (markers.length > 0) {
          const text = await res.text();
          if (res.status !== o.expectStatus) failure = `status ${res.status}, expected ${o.expectStatus}`;
          else if (markers.some((m) => text.includes(m))) failure = `unexpected body: ${text.slice(0, 200)}`;
        } else if (o.firstByte) {
          const reader = res.body?.getReader();
          for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read())
            if (firstByteAt === undefined && chunk.value.length > 0) firstByteAt = performance.now();
          if (res.status !== o.expectStatus) failure = `status ${res.status}, expected ${o.expectStatus}`;
          else if (firstByteAt === undefined) failure = "empty body";
        } else {
          await res.arrayBuffer();
          if (res.status !== o.expectStatus) failure = `status ${res.status}, expected ${o.expectStatus}`;
        }
      } catch (error) {
        failure = messageOf(error);
      }
      const end = performance.now();
      if (start >= measureFrom) {
        if (failure === undefined) {
          samples.push((firstByteAt ?? end) - start);
          if (o.serverTiming) addServerTiming(timing, stages);
        } else errors++;
      }
      if (failure !== undefined) {
        firstError ??= failure;
        if (chainBroken) {
          if (start < measureFrom) errors++; // not to go unnoticed when it happens during warm-up
          return;
        }
        await Bun.sleep(1); // a dead server refuses instantly: do not spin a core on it
      }
    }
  };
  await Promise.all(Array.from({ length: o.connections }, (_, i) => worker(i)));

  const result = summarize(samples, errors, firstError, performance.now() - measureFrom);
  if (o.serverTiming && samples.length > 0) result.stages = Object.fromEntries([...stages].map(([name, ms]) => [name, ms / samples.length]));
  return result;
}

/** Throughput and latency percentiles of one closed-loop measurement. */
export function summarize(samples: number[], errors: number, firstError: string | undefined, elapsedMs: number): LoadResult {
  const sorted = Float64Array.from(samples).sort();
  return {
    requests: sorted.length,
    errors,
    firstError,
    elapsedMs,
    rps: sorted.length / (elapsedMs / 1000),
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length > 0 ? (sorted[sorted.length - 1] ?? Number.NaN) : Number.NaN,
  };
}
