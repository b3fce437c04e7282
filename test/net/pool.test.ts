// Keep-alive connections of the outbound guard (src/net/pool.ts, src/net/guard.ts): reused only
// for the same checked address, port, scheme and TLS server name, with the guard's checks still
// run on every request, and bounded per key and in total.
//
// Connections are counted where they arrive: loopback servers (node:http) count the TCP
// connections they accept and close, and Bun.serve servers report the client port of each request
// (one port, one connection). Every test uses its own ConnectionPool ledger; the connections
// themselves are Bun's, so each test talks to servers of its own.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlockedUrlError, guardedFetch, readCapped, RedirectRefusedError, type Resolver, ResponseTooLargeError } from "../../src/net/guard.ts";
import { jsonFromChildBun } from "../support/process.ts";
import { certificateIn } from "../support/tls.ts";
import { ConnectionPool, POOL_LIMITS } from "../../src/net/pool.ts";
import { rejectionOf } from "../support/settle.ts";

const GUARD_MODULE = join(import.meta.dir, "../../src/net/guard.ts");

/** A node:http server on `host` that counts the connections it accepts and those still open. */
interface Counting {
  port: number;
  accepted: number;
  open: Set<Socket>;
  /** Requests answered, with the Host header each carried. */
  hosts: string[];
  /** Resolves when the next connection closes. */
  nextClose(): Promise<void>;
  /** Responses of /hold wait here until released. */
  held: ServerResponse[];
  server: Server;
}

const servers: Server[] = [];

async function countingServer(host = "127.0.0.1", port = 0, keepAliveTimeoutMs = 30_000): Promise<Counting> {
  const closes: (() => void)[] = [];
  const state: Counting = {
    port: 0,
    accepted: 0,
    open: new Set(),
    hosts: [],
    held: [],
    nextClose: () => new Promise((resolve) => closes.push(resolve)),
    server: createServer((req, res) => {
      state.hosts.push(req.headers.host ?? "");
      const path = req.url ?? "/";
      if (path === "/redirect") {
        res.writeHead(302, { location: "http://169.254.169.254/" }).end("moved");
        return;
      }
      if (path === "/hold") {
        state.held.push(res);
        return;
      }
      if (path === "/stream") {
        // One chunk, then the response stays open: a connection that cannot be parked.
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("first chunk");
        state.held.push(res);
        return;
      }
      if (path === "/big") {
        res.end("x".repeat(256 * 1024));
        return;
      }
      res.end(`ok ${req.socket.remotePort}`);
    }),
  };
  state.server.keepAliveTimeout = keepAliveTimeoutMs;
  state.server.on("connection", (socket: Socket) => {
    state.accepted++;
    state.open.add(socket);
    socket.on("close", () => {
      state.open.delete(socket);
      closes.splice(0).forEach((resolve) => resolve());
    });
  });
  await new Promise<void>((resolve, reject) => {
    state.server.once("error", reject);
    state.server.listen(port, host, () => resolve());
  });
  state.port = (state.server.address() as { port: number }).port;
  servers.push(state.server);
  return state;
}

afterAll(async () => {
  for (const server of servers) server.closeAllConnections?.();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A resolver answering from a table that a test may change between requests. */
function mutableResolver(table: Record<string, string[]>): Resolver {
  return async (hostname) => {
    const answer = table[hostname];
    if (!answer) throw new Error(`ENOTFOUND ${hostname}`);
    return answer;
  };
}

const dev = (resolver: Resolver, pool: ConnectionPool) => ({ allowLoopback: true, resolver, pool });

async function text(url: string, options: ReturnType<typeof dev>): Promise<string> {
  return (await guardedFetch(url, {}, options)).text();
}

describe("reuse", () => {
  test("a second request to the same name and address reuses the connection; without pooling each opens its own", async () => {
    const up = await countingServer();
    const options = dev(mutableResolver({ "svc.example": ["127.0.0.1"] }), new ConnectionPool());
    const first = await text(`http://svc.example:${up.port}/`, options);
    const second = await text(`http://svc.example:${up.port}/`, options);
    expect(first).toBe(second); // the same client port: one connection
    expect(up.accepted).toBe(1);
    expect(options.pool.snapshot()).toEqual({ connections: 1, keys: { [`http|127.0.0.1|${up.port}`]: { busy: 0, connections: 1 } } });

    // Control: a ledger that allows no pooled connection → a new connection per request, each closed after.
    const unpooled = dev(options.resolver, new ConnectionPool({ ...POOL_LIMITS, perKey: 0 }));
    await text(`http://svc.example:${up.port}/`, unpooled);
    await text(`http://svc.example:${up.port}/`, unpooled);
    expect(up.accepted).toBe(3);
  });

  test("POST bodies, Host and the response stream work over a reused connection; a large body read to the end frees it", async () => {
    const up = await countingServer();
    const options = dev(mutableResolver({ "svc.example": ["127.0.0.1"] }), new ConnectionPool());
    for (let i = 0; i < 3; i++) {
      const response = await guardedFetch(
        `http://svc.example:${up.port}/big`,
        { method: "POST", body: JSON.stringify({ i }), headers: { host: "evil.example" } },
        options,
      );
      expect((await response.text()).length).toBe(256 * 1024);
    }
    expect(up.accepted).toBe(1);
    expect(up.hosts).toEqual([`svc.example:${up.port}`, `svc.example:${up.port}`, `svc.example:${up.port}`]);
    expect(options.pool.snapshot().keys[`http|127.0.0.1|${up.port}`]).toEqual({ busy: 0, connections: 1 });
  });

  test("a response cancelled before its end closes that connection (never parked half-read); the next request opens a new one", async () => {
    const up = await countingServer();
    const options = dev(mutableResolver({ "svc.example": ["127.0.0.1"] }), new ConnectionPool());
    const closed = up.nextClose();
    const response = await guardedFetch(`http://svc.example:${up.port}/stream`, {}, options);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("first chunk");
    await reader.cancel();
    await closed;
    expect(options.pool.snapshot().keys[`http|127.0.0.1|${up.port}`]?.busy ?? 0).toBe(0);
    expect(await text(`http://svc.example:${up.port}/`, options)).toStartWith("ok ");
    expect(up.accepted).toBe(2);
  });

  test("a response body read to the end frees its lease even when it is large; one cancelled after arriving whole too", async () => {
    const up = await countingServer();
    const options = dev(mutableResolver({ "svc.example": ["127.0.0.1"] }), new ConnectionPool());
    const response = await guardedFetch(`http://svc.example:${up.port}/big`, {}, options);
    await response.body!.cancel();
    expect(options.pool.snapshot().keys[`http|127.0.0.1|${up.port}`]?.busy ?? 0).toBe(0);
  });

  test("a redirect is still refused, and its lease is returned", async () => {
    const up = await countingServer();
    const options = dev(mutableResolver({ "svc.example": ["127.0.0.1"] }), new ConnectionPool());
    expect(await rejectionOf(guardedFetch(`http://svc.example:${up.port}/redirect`, {}, options))).toBeInstanceOf(RedirectRefusedError);
    await Bun.sleep(0);
    expect(options.pool.snapshot().keys[`http|127.0.0.1|${up.port}`]?.busy ?? 0).toBe(0);
  });
});

describe("decoded bodies", () => {
  for (const pooled of [true, false]) {
    test(`a gzip body declaring its small encoded length is read with the cap, not trusted (${pooled ? "pooled" : "unpooled"})`, async () => {
      const { gzipSync } = await import("node:zlib");
      const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x61)); // about 4 KB encoded, 4 MiB decoded
      const up = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(bomb, { headers: { "content-encoding": "gzip" } }) });
      try {
        const options = dev(mutableResolver({ "svc.example": ["127.0.0.1"] }), new ConnectionPool({ ...POOL_LIMITS, perKey: pooled ? 32 : 0 }));
        const response = await guardedFetch(`http://svc.example:${up.port}/`, {}, options);
        expect(response.headers.get("content-encoding")).toBe("gzip");
        expect(response.headers.get("content-length")).toBeNull(); // Bun decoded the body: the encoded length does not describe it
        expect(await rejectionOf(readCapped(response, 64 * 1024))).toBeInstanceOf(ResponseTooLargeError);
        const plain = await guardedFetch(`http://svc.example:${up.port}/`, {}, options);
        expect((await plain.text()).length).toBe(4 * 1024 * 1024);
      } finally {
        up.stop(true);
      }
    });
  }
});

describe("the guard runs on every request", () => {
  test("after the name re-resolves to a blocked address the next request is refused, though a connection to the old address is parked", async () => {
    const up = await countingServer();
    const table: Record<string, string[]> = { "svc.example": ["127.0.0.1"] };
    const options = dev(mutableResolver(table), new ConnectionPool());
    await text(`http://svc.example:${up.port}/`, options);
    expect(up.open.size).toBe(1); // parked, still open

    table["svc.example"] = ["10.0.0.1"];
    expect(await rejectionOf(guardedFetch(`http://svc.example:${up.port}/`, {}, options))).toBeInstanceOf(BlockedUrlError);
    table["svc.example"] = ["127.0.0.1", "169.254.169.254"];
    expect(await rejectionOf(guardedFetch(`http://svc.example:${up.port}/`, {}, options))).toBeInstanceOf(BlockedUrlError);
    await Bun.sleep(20);
    expect(up.hosts.length).toBe(1);
    expect(up.accepted).toBe(1);
    expect(up.open.size).toBe(1);
    expect(options.pool.snapshot().connections).toBe(1);
  });

  test("after the name re-resolves to another allowed address the request goes there, not over the parked connection", async () => {
    const first = await countingServer("127.0.0.1");
    const second = await countingServer("127.0.0.2", first.port); // the same port on another loopback address
    const table: Record<string, string[]> = { "svc.example": ["127.0.0.1"] };
    const options = dev(mutableResolver(table), new ConnectionPool());
    await text(`http://svc.example:${first.port}/`, options);
    table["svc.example"] = ["127.0.0.2"];
    await text(`http://svc.example:${first.port}/`, options);
    await text(`http://svc.example:${first.port}/`, options);
    expect([first.hosts.length, second.hosts.length]).toEqual([1, 2]);
    expect([first.accepted, second.accepted]).toEqual([1, 1]);
    expect(Object.keys(options.pool.snapshot().keys).sort()).toEqual([`http|127.0.0.1|${first.port}`, `http|127.0.0.2|${first.port}`]);
  });
});

// ---------------------------------------------------------------------------------------------
// TLS: one address, two names. guardedFetch takes no CA, so the requests run in a child Bun started
// with NODE_EXTRA_CA_CERTS (read at start-up) trusting the test certificates.
// ---------------------------------------------------------------------------------------------

describe("TLS connections are never shared across server names on one address", () => {
  let dir: string;
  let caPath: string;
  let both: ReturnType<typeof Bun.serve>;
  let onlyA: ReturnType<typeof Bun.serve>;
  let plain: ReturnType<typeof Bun.serve>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "svc-pool-tls-"));
    const a = certificateIn(dir, "a.test");
    const b = certificateIn(dir, "b.test");
    caPath = join(dir, "ca.pem");
    writeFileSync(caPath, a.cert + b.cert);
    // Each answer names the Host and the client port of its connection.
    const handler = (req: Request, server: { requestIP(req: Request): { port: number } | null }) =>
      new Response(`${req.headers.get("host")?.split(":")[0]} ${server.requestIP(req)?.port}`);
    // Picks the certificate by SNI: both names verify, each on its own handshake.
    both = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: [
        { serverName: "a.test", ...a },
        { serverName: "b.test", ...b },
      ],
      fetch: handler,
    });
    // Only a.test's certificate: b.test over a connection of its own must fail verification.
    onlyA = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: a, fetch: handler });
    plain = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
  });

  afterAll(() => {
    both.stop(true);
    onlyA.stop(true);
    plain.stop(true);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a.test and b.test on 127.0.0.1: separate connections over TLS (and b.test fails where only a.test has a certificate); plain http shares one", async () => {
    const source = `
      import { guardedFetch } from ${JSON.stringify(GUARD_MODULE)};
      const options = { allowLoopback: true, resolver: async () => ["127.0.0.1"] };
      const run = async (url) => {
        try {
          const response = await guardedFetch(url, {}, options);
          return await response.text();
        } catch (error) {
          return error.code ?? error.name;
        }
      };
      const out = {};
      for (const [label, port, scheme] of [["both", ${both.port}, "https"], ["onlyA", ${onlyA.port}, "https"], ["plain", ${plain.port}, "http"]]) {
        out[label] = [];
        for (const name of ["a.test", "b.test", "a.test", "b.test"]) out[label].push(await run(scheme + "://" + name + ":" + port + "/"));
      }
      console.log(JSON.stringify(out));
    `;
    const out = (await jsonFromChildBun(source, { NODE_EXTRA_CA_CERTS: caPath })) as Record<string, string[]>;
    const port = (answer: string | undefined) => answer?.split(" ")[1];

    // Both names verify; each keeps its own connection, reused by its own later request.
    expect(out.both!.map((answer) => answer.split(" ")[0])).toEqual(["a.test", "b.test", "a.test", "b.test"]);
    expect(port(out.both![0])).toBe(port(out.both![2]));
    expect(port(out.both![1])).toBe(port(out.both![3]));
    expect(port(out.both![0])).not.toBe(port(out.both![1]));

    // b.test never rides a.test's verified connection: its own handshake meets a.test's certificate.
    expect(out.onlyA![0]!.startsWith("a.test ")).toBe(true);
    expect(out.onlyA![1]).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    expect(out.onlyA![2]).toBe(out.onlyA![0]!); // a.test's connection is still there and reused
    expect(out.onlyA![3]).toBe("ERR_TLS_CERT_ALTNAME_INVALID");

    // Control: without TLS the connection to the checked address is shared by both names (no name to protect),
    // so the port comparison above can see reuse.
    expect(new Set(out.plain!.map(port)).size).toBe(1);
  });
});

describe("bounds", () => {
  const held: Counting[] = [];
  afterEach(() => {
    for (const up of held.splice(0)) for (const res of up.held.splice(0)) res.end("released");
  });

  async function holdAll(up: Counting, count: number, options: ReturnType<typeof dev>) {
    const pending = Array.from({ length: count }, () => guardedFetch(`http://svc.example:${up.port}/hold`, {}, options).then((r) => r.text()));
    while (up.held.length < count) await Bun.sleep(5);
    return pending;
  }

  test("per key: requests beyond perKey go over connections of their own that close after the response", async () => {
    const up = await countingServer();
    held.push(up);
    const options = dev(mutableResolver({ "svc.example": ["127.0.0.1"] }), new ConnectionPool({ ...POOL_LIMITS, perKey: 2 }));
    const pending = await holdAll(up, 4, options);
    expect(up.accepted).toBe(4);
    expect(options.pool.snapshot().keys[`http|127.0.0.1|${up.port}`]).toEqual({ busy: 2, connections: 2 });
    for (const res of up.held.splice(0)) res.end("released");
    await Promise.all(pending);
    while (up.open.size > 2) await up.nextClose();
    expect(up.open.size).toBe(2); // the two pooled connections stay parked; the other two closed

    // The parked two serve the next two concurrent requests.
    const again = await holdAll(up, 2, options);
    expect(up.accepted).toBe(4);
    for (const res of up.held.splice(0)) res.end("released");
    await Promise.all(again);
  });

  test("in total: a ledger at its total sends a new key's requests unpooled; an idle key past idleMs frees its share", () => {
    let now = 0;
    const pool = new ConnectionPool({ perKey: 5, total: 3, idleMs: 1000 }, () => now);
    const key = (address: string) => ({ scheme: "https:" as const, address, port: 443, serverName: "svc.example" });
    const a = [pool.lease(key("1.1.1.1")), pool.lease(key("1.1.1.1"))];
    const b = pool.lease(key("2.2.2.2"));
    expect([...a, b].map((l) => l.keepalive)).toEqual([true, true, true]);
    expect(pool.lease(key("3.3.3.3")).keepalive).toBe(false); // total reached
    for (const lease of [...a, b]) lease.end(false);
    expect(pool.snapshot().connections).toBe(3); // parked, still counted
    expect(pool.lease(key("3.3.3.3")).keepalive).toBe(false);

    // A parked connection is reused without counting another.
    const reuse = pool.lease(key("1.1.1.1"));
    expect(reuse.keepalive).toBe(true);
    expect(pool.snapshot().connections).toBe(3);
    reuse.end(false);

    now = 999;
    expect(pool.snapshot().connections).toBe(3);
    now = 1000; // longer than Bun keeps a parked connection: none is left for those keys
    expect(pool.snapshot()).toEqual({ connections: 0, keys: {} });
    expect(pool.lease(key("3.3.3.3")).keepalive).toBe(true);
  });

  test("a key with a request in flight never expires; a failed request uncounts its connection", () => {
    let now = 0;
    const pool = new ConnectionPool({ perKey: 1, total: 10, idleMs: 1000 }, () => now);
    const key = { scheme: "https:" as const, address: "1.1.1.1", port: 443, serverName: "svc.example" };
    const busy = pool.lease(key);
    now = 5000;
    expect(pool.snapshot().keys["https|1.1.1.1|443|svc.example"]).toEqual({ busy: 1, connections: 1 });
    expect(pool.lease(key).keepalive).toBe(false); // perKey 1, busy
    busy.end(true);
    expect(pool.snapshot()).toEqual({ connections: 0, keys: {} });
    busy.end(true); // a second end changes nothing
    expect(pool.snapshot().connections).toBe(0);
  });

  test("the ledger keys TLS connections by server name, plain http ones by address and port", () => {
    expect(ConnectionPool.keyOf({ scheme: "https:", address: "::1", port: 8443, serverName: "a.test" })).not.toBe(
      ConnectionPool.keyOf({ scheme: "https:", address: "::1", port: 8443, serverName: "b.test" }),
    );
    expect(ConnectionPool.keyOf({ scheme: "http:", address: "127.0.0.1", port: 80, serverName: "a.test" })).toBe(
      ConnectionPool.keyOf({ scheme: "http:", address: "127.0.0.1", port: 80, serverName: "b.test" }),
    );
    expect(ConnectionPool.keyOf({ scheme: "http:", address: "127.0.0.1", port: 80, serverName: "" })).not.toBe(
      ConnectionPool.keyOf({ scheme: "https:", address: "127.0.0.1", port: 80, serverName: "" }),
    );
  });
});

describe("idle connections", () => {
  test("a parked connection the server closes when idle is not reused: the next request opens a new one and succeeds", async () => {
    const up = await countingServer("127.0.0.1", 0, 100);
    const options = dev(mutableResolver({ "svc.example": ["127.0.0.1"] }), new ConnectionPool());
    const closed = up.nextClose();
    await text(`http://svc.example:${up.port}/`, options);
    await closed; // the server's keep-alive timeout ended the parked connection
    expect(await text(`http://svc.example:${up.port}/`, options)).toStartWith("ok ");
    expect(up.accepted).toBe(2);
  });
});
