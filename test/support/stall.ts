// "Never a stall" (README "Hostile input"): a test runs its attack while /healthz is asked every
// 100 ms, and bounds how late the answers came.
import { expect } from "bun:test";

/** Runs `work` while asking /healthz every 100 ms through `request`; the longest wait for an answer past when it was due. */
export async function longestHealthz<T>(request: (path: string) => Promise<Response>, work: Promise<T>): Promise<{ result: T; longestMs: number }> {
  let done = false;
  let longestMs = 0;
  const probe = (async () => {
    while (!done) {
      const due = performance.now() + 100;
      await Bun.sleep(100);
      expect((await request("/healthz")).status).toBe(200);
      longestMs = Math.max(longestMs, performance.now() - due);
    }
  })();
  try {
    return { result: await work, longestMs };
  } finally {
    done = true;
    await probe;
  }
}
