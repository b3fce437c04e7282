// Slots (src/kit/slots.ts): at most `running` at once, at most `waiting` in line (first come,
// first served), refused past the line, a caller whose signal aborts leaves the line.
import { describe, expect, test } from "bun:test";
import { Busy, createKeyedSlots, createSlots } from "../../src/kit/slots.ts";
import { rejectionOf } from "../support/settle.ts";

describe("slots", () => {
  test("running and waiting at their limits; one over is refused at once", async () => {
    const slots = createSlots({ running: 2, waiting: 1 });
    const a = await slots.acquire();
    const b = await slots.acquire();
    expect([a.ahead, b.ahead]).toEqual([0, 0]);
    let cGranted = false;
    const c = slots.acquire().then((turn) => ((cGranted = true), turn));
    expect(slots.load()).toEqual({ running: 2, waiting: 1 });
    expect(await rejectionOf(slots.acquire())).toBeInstanceOf(Busy);
    await Bun.sleep(0);
    expect(cGranted).toBe(false);
    a.release();
    a.release(); // a second release frees nothing more
    const turn = await c;
    expect(turn.ahead).toBe(2);
    expect(slots.load()).toEqual({ running: 2, waiting: 0 });
    b.release();
    turn.release();
    expect(slots.load()).toEqual({ running: 0, waiting: 0 });
  });

  test("a caller whose signal aborts while waiting leaves the line, and the next one takes its place", async () => {
    const slots = createSlots({ running: 1, waiting: 1 });
    const a = await slots.acquire();
    const gone = new AbortController();
    const waiting = slots.acquire(gone.signal);
    gone.abort(new Error("request closed"));
    expect((await rejectionOf(waiting)).message).toBe("request closed");
    expect(slots.load()).toEqual({ running: 1, waiting: 0 });
    const next = slots.acquire();
    a.release();
    (await next).release();
    expect(slots.load()).toEqual({ running: 0, waiting: 0 });
  });

  test("keyed: each key has its own limits; a key with no work is forgotten", async () => {
    const keyed = createKeyedSlots({ running: 1, waiting: 0 });
    const a = await keyed.acquire("org-a");
    expect(await rejectionOf(keyed.acquire("org-a"))).toBeInstanceOf(Busy);
    const b = await keyed.acquire("org-b");
    expect(keyed.load("org-a")).toEqual({ running: 1, waiting: 0 });
    a.release();
    b.release();
    expect(keyed.load("org-a")).toEqual({ running: 0, waiting: 0 });
    (await keyed.acquire("org-a")).release();
  });
});
