// The open-loop generator: requests sent on a fixed schedule (`rate` per second) whether or not
// earlier answers came back, so a slow server cannot slow the arrivals down. Each latency is
// measured from the request's *scheduled* send time, not from when the generator got round to
// sending it: a generator that fell behind (or a server that stalled) shows up in the figures
// instead of being left out ("coordinated omission", the flaw of closed loops under load).
//
// bench/load-process.ts runs this instead of the closed loop when LoadOptions.rate is set.
import { messageOf } from "../src/errors.ts";
import { type LoadOptions, type LoadResult, summarize } from "./load.ts";

/** Longest wait for the answers still in flight once the schedule ends; those still open then count as errors. */
const DRAIN_MS = 10_000;

/**
 * Sends one request per 1/rate seconds from start to warm-up + duration. Requests are spread
 * over the keep-alive connections fetch keeps (it opens more when all are busy, as independent
 * clients would). With `firstByte`, a sample ends at the answer's first body byte (the body is
 * still read to its end); otherwise at its last byte.
 */
export async function runOpenLoop(o: LoadOptions & { rate: number }): Promise<LoadResult> {
  const intervalMs = 1000 / o.rate;
  const begin = performance.now();
  const measureFrom = begin + o.warmupMs;
  const until = measureFrom + o.durationMs;
  const samples: number[] = [];
  const markers = o.failIfBodyIncludes ?? [];
  let errors = 0;
  let firstError: string | undefined;
  let sent = 0;
  let lateMs = 0; // the worst lag between a scheduled time and the moment it was sent
  const inFlight = new Set<Promise<void>>();

  const send = async (scheduled: number, index: number) => {
    const extra = o.connectionHeaders?.length ? o.connectionHeaders[index % o.connectionHeaders.length] : undefined;
    let failure: string | undefined;
    let end = Number.NaN;
    try {
      const res = await fetch(o.url, { method: o.method, headers: extra ? { ...o.headers, ...extra } : o.headers, body: o.body });
      let text = "";
      const decoder = new TextDecoder();
      const reader = res.body?.getReader();
      for (;;) {
        const chunk = reader ? await reader.read() : { done: true as const, value: undefined };
        if (chunk.done) break;
        if (o.firstByte && Number.isNaN(end) && chunk.value.length > 0) end = performance.now();
        if (markers.length > 0) text += decoder.decode(chunk.value, { stream: true });
      }
      if (!o.firstByte) end = performance.now();
      if (res.status !== o.expectStatus) failure = `status ${res.status}, expected ${o.expectStatus}`;
      else if (markers.some((m) => text.includes(m))) failure = `unexpected body: ${text.slice(0, 200)}`;
      else if (Number.isNaN(end)) failure = "empty body";
    } catch (error) {
      failure = messageOf(error);
    }
    if (scheduled < measureFrom) return;
    if (failure === undefined) samples.push(end - scheduled);
    else {
      errors++;
      firstError ??= failure;
    }
  };

  for (let i = 0; ; i++) {
    const scheduled = begin + i * intervalMs;
    if (scheduled >= until) break;
    // A timer may fire a fraction of a millisecond early: never send before the scheduled time.
    for (let now = performance.now(); now < scheduled; now = performance.now()) await Bun.sleep(scheduled - now);
    lateMs = Math.max(lateMs, performance.now() - scheduled);
    const request = send(scheduled, i);
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
    sent++;
  }
  const drained = await Promise.race([Promise.all(inFlight).then(() => true), Bun.sleep(DRAIN_MS).then(() => false)]);
  if (!drained) {
    errors += inFlight.size;
    firstError ??= `${inFlight.size} requests unanswered ${DRAIN_MS / 1000} s after the schedule ended`;
  }
  const result = summarize(samples, errors, firstError, o.durationMs);
  result.offeredRps = o.rate;
  result.scheduleLagMs = lateMs;
  result.sent = sent;
  return result;
}
