// One worker thread, one request at a time, each within its time (src/kit/worker-client.ts): a
// reply reaches its request; a request past its time ends `late` and a thread that throws ends it
// `failed`, and either way the next request is answered by a fresh thread; a thread that cannot
// start, or is closed under a request, ends that request `failed` instead of leaving it waiting.
import { describe, expect, test } from "bun:test";
import { createWorkerClient } from "../../src/kit/worker-client.ts";

type Reply = { ok: true; echo: string; thread: number } | { ok: false; reason: string };

// A thread that echoes `text`, spins forever on "spin", and throws on "throw"; `thread` tells threads apart.
const code = `const thread = Math.random();
self.onmessage = (e) => {
  if (e.data.text === "spin") for (;;) {}
  if (e.data.text === "throw") throw new Error("boom");
  postMessage({ id: e.data.id, ok: true, echo: e.data.text, thread });
};`;
const url = URL.createObjectURL(new Blob([code], { type: "application/javascript" }));

const client = (spawn: () => Worker = () => new Worker(url), timeoutMs = 2_000) =>
  createWorkerClient<{ text: string }, Reply>({
    spawn,
    timeoutMs,
    failed: { ok: false, reason: "failed" },
    late: { ok: false, reason: "late" },
  });

describe("worker client", () => {
  test("replies reach their requests, in order, on one thread", async () => {
    const c = client();
    try {
      const [a, b] = await Promise.all([c.ask({ text: "a" }), c.ask({ text: "b" })]);
      expect(a).toMatchObject({ ok: true, echo: "a" });
      expect(b).toMatchObject({ ok: true, echo: "b" });
      expect(a.ok && b.ok && a.thread === b.thread).toBe(true);
    } finally {
      c.close();
    }
  });

  test("past its time a request ends late; the next one behind it is answered by a fresh thread", async () => {
    const c = client(undefined, 200);
    try {
      const first = await c.ask({ text: "a" });
      const [spun, after] = await Promise.all([c.ask({ text: "spin" }), c.ask({ text: "b" })]);
      expect(spun).toEqual({ ok: false, reason: "late" });
      expect(after).toMatchObject({ ok: true, echo: "b" });
      expect(first.ok && after.ok && first.thread !== after.thread).toBe(true);
    } finally {
      c.close();
    }
  });

  test("a thread that throws ends its request failed; the next is answered", async () => {
    const c = client();
    try {
      expect(await c.ask({ text: "throw" })).toEqual({ ok: false, reason: "failed" });
      expect(await c.ask({ text: "c" })).toMatchObject({ ok: true, echo: "c" });
    } finally {
      c.close();
    }
  });

  test("a thread that cannot start, or is closed under a request, ends it failed", async () => {
    const broken = client(() => {
      throw new Error("no such worker");
    });
    expect(await broken.ask({ text: "a" })).toEqual({ ok: false, reason: "failed" });
    const c = client(undefined, 60_000);
    const spun = c.ask({ text: "spin" });
    await Bun.sleep(50);
    c.close();
    expect(await spun).toEqual({ ok: false, reason: "failed" });
  });
});
