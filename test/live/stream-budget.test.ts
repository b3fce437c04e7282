// The event stream's bound at its byte boundary (README "Live conversation", "Bounded";
// src/live/stream-budget.ts), with a fake of Bun's direct stream controller instead of a socket,
// whose buffers make the count vary: `write` answers a number when the connection took the bytes
// (0 when the client went away) and a promise, settled by the test, while the socket is full.
import { describe, expect, test } from "bun:test";
import { STREAM_BUFFER_BYTES } from "../../src/live/event-stream.ts";
import { createStreamBudget } from "../../src/live/stream-budget.ts";

/** A controller whose socket takes everything until `fill()`, then answers a pending promise until `drain()`. */
function fakeSocket() {
  let full = false;
  let gone = false;
  let drained: (n: number) => void = () => {};
  const written: number[] = [];
  const logs: { msg: string; fields?: Record<string, unknown> }[] = [];
  const ends: boolean[] = [];
  const budget = createStreamBudget({
    sink: {
      write(bytes) {
        written.push(bytes.byteLength);
        if (gone) return 0;
        if (!full) return bytes.byteLength;
        return new Promise<number>((resolve) => (drained = resolve));
      },
      flush() {},
    },
    limit: STREAM_BUFFER_BYTES,
    log: { info: (msg, fields) => logs.push({ msg, fields }) },
    end: (drop) => ends.push(drop),
  });
  return {
    budget,
    written,
    logs,
    ends,
    fill: () => (full = true),
    take: () => (full = false),
    leave: () => (gone = true),
    drain: async () => {
      full = false;
      drained(0);
      await Promise.resolve();
      await Promise.resolve();
    },
  };
}

const bytes = (n: number) => new Uint8Array(n);

describe("the event stream's budget", () => {
  test(`exactly ${STREAM_BUFFER_BYTES} bytes untaken are kept; one byte more ends the stream, with the connection, and logs once`, () => {
    const s = fakeSocket();
    s.fill();
    expect(s.budget.write(bytes(1000))).toBe(true);
    expect(s.budget.draining).not.toBeNull();
    expect(s.budget.write(bytes(STREAM_BUFFER_BYTES - 1000))).toBe(true);
    expect(s.budget.unsent).toBe(STREAM_BUFFER_BYTES);
    expect(s.ends).toEqual([]);
    expect(s.budget.write(bytes(1))).toBe(false);
    expect(s.ends).toEqual([true]);
    expect(s.logs).toEqual([{ msg: "event stream ended: the client is not taking what it is sent", fields: { unsent_bytes: STREAM_BUFFER_BYTES } }]);
    // The byte that would pass the bound was never handed to the connection, and nothing after it is.
    expect(s.written.reduce((a, b) => a + b, 0)).toBe(STREAM_BUFFER_BYTES);
    expect(s.budget.write(bytes(1))).toBe(false);
    s.budget.endSlow();
    expect(s.ends).toEqual([true]);
    expect(s.logs.length).toBe(1);
  });

  test("bytes the socket takes at once count for nothing, however many", () => {
    const s = fakeSocket();
    for (let i = 0; i < 5; i++) expect(s.budget.write(bytes(STREAM_BUFFER_BYTES))).toBe(true);
    expect(s.budget.unsent).toBe(0);
    expect(s.budget.draining).toBeNull();
    expect(s.ends).toEqual([]);
  });

  test("a drain resets the count: a full bound more may then wait", async () => {
    const s = fakeSocket();
    s.fill();
    expect(s.budget.write(bytes(STREAM_BUFFER_BYTES))).toBe(true);
    await s.drain();
    expect(s.budget.draining).toBeNull();
    expect(s.budget.unsent).toBe(0);
    s.fill();
    expect(s.budget.write(bytes(STREAM_BUFFER_BYTES))).toBe(true);
    expect(s.budget.unsent).toBe(STREAM_BUFFER_BYTES);
    expect(s.ends).toEqual([]);
    expect(s.budget.write(bytes(1))).toBe(false);
    expect(s.ends).toEqual([true]);
  });

  test("bytes the socket takes while an earlier drain is still awaited count until it settles", () => {
    const s = fakeSocket();
    s.fill();
    expect(s.budget.write(bytes(10))).toBe(true);
    s.take(); // the socket answers a number again, but the first promise has not settled
    expect(s.budget.write(bytes(STREAM_BUFFER_BYTES - 10))).toBe(true);
    expect(s.budget.unsent).toBe(STREAM_BUFFER_BYTES);
    expect(s.budget.write(bytes(1))).toBe(false);
    expect(s.ends).toEqual([true]);
  });

  test("a client that went away (write answers 0) ends the stream, without dropping or logging", () => {
    const s = fakeSocket();
    expect(s.budget.write(bytes(10))).toBe(true);
    s.leave();
    expect(s.budget.write(bytes(10))).toBe(false);
    expect(s.ends).toEqual([false]);
    expect(s.logs).toEqual([]);
    expect(s.budget.write(bytes(10))).toBe(false);
    expect(s.ends).toEqual([false]);
  });

  test("a heartbeat's endSlow ends a stream whose drain is still awaited, with the count it had", () => {
    const s = fakeSocket();
    s.fill();
    s.budget.write(bytes(123));
    s.budget.endSlow();
    expect(s.ends).toEqual([true]);
    expect(s.logs[0]!.fields).toEqual({ unsent_bytes: 123 });
  });
});
