// readBodyCapped (src/net/capped-body.ts): a body larger than the cap is refused, never
// truncated — also when fetch decodes a gzip body whose Content-Length is the small encoded size.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { readBodyCapped } from "../../src/net/capped-body.ts";

const decoded = Buffer.alloc(1024 * 1024, 0x61); // 1 MiB of "a": about 1 KB gzipped
const encoded = gzipSync(decoded);
let server: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) =>
      new URL(req.url).pathname === "/gzip"
        ? new Response(encoded, { headers: { "content-encoding": "gzip", "content-length": String(encoded.byteLength) } })
        : new Response(decoded.subarray(0, 100), { headers: { "content-length": "100" } }),
  });
});
afterAll(() => server.stop(true));

describe("readBodyCapped", () => {
  test("a gzip body is capped at its decoded size, not trusted for its encoded Content-Length", async () => {
    expect(encoded.byteLength).toBeLessThan(64 * 1024);
    const res = await fetch(`http://127.0.0.1:${server.port}/gzip`);
    expect(await readBodyCapped(res, 64 * 1024)).toBeNull();
    const whole = await readBodyCapped(await fetch(`http://127.0.0.1:${server.port}/gzip`), decoded.byteLength);
    expect(whole?.byteLength).toBe(decoded.byteLength);
  });

  test("a plain body exactly at the cap is read; one byte less of cap refuses it", async () => {
    expect((await readBodyCapped(await fetch(`http://127.0.0.1:${server.port}/plain`), 100))?.byteLength).toBe(100);
    expect(await readBodyCapped(await fetch(`http://127.0.0.1:${server.port}/plain`), 99)).toBeNull();
  });
});
