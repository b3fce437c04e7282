// Our MCP client over the guard's keep-alive connections (src/net/pool.ts): the requests of one
// call (initialize, notifications/initialized, tools/call, DELETE) and of the calls after it ride
// the same connection, against real SDK servers; a session lost (404) is still re-initialised.
// Connections are counted by a TCP relay in front of each server, which counts the connections it
// accepts.
import { afterAll, describe, expect, test } from "bun:test";
import { createServer, type Server, connect, type Socket } from "node:net";
import { McpSession } from "../../src/connectors/mcp-client.ts";
import { ConnectionPool } from "../../src/net/pool.ts";
import { forgetfulServer, type McpFixture, statefulSseServer, statelessJsonServer } from "../support/mcp-servers.ts";

const opened: { relay: Server; fixture: McpFixture }[] = [];

afterAll(async () => {
  for (const { relay, fixture } of opened) {
    relay.close();
    await fixture.stop();
  }
});

/** A TCP relay to `fixture` on 127.0.0.1 counting the connections it accepts; its URL names `svc.example`. */
async function relayed(fixture: McpFixture): Promise<{ url: string; accepted: () => number }> {
  const target = new URL(fixture.url);
  let accepted = 0;
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    accepted++;
    const upstream = connect(Number(target.port), "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  relay.on("close", () => sockets.forEach((s) => s.destroy()));
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  opened.push({ relay, fixture });
  return { url: `http://svc.example:${(relay.address() as { port: number }).port}${target.pathname}`, accepted: () => accepted };
}

const guard = (pool: ConnectionPool) => ({ allowLoopback: true, resolver: async () => ["127.0.0.1"], pool });

async function call(url: string, pool: ConnectionPool, text: string): Promise<unknown> {
  // The revision an earlier discovery negotiated, as src/connectors/calls.ts passes it: no server/discover probe per call.
  const session = await McpSession.open({ url, authHeaders: () => ({}), guard: guard(pool), signal: AbortSignal.timeout(15_000) }, "2025-11-25");
  try {
    return await session.request("tools/call", { name: "echo", arguments: { text } }, true);
  } finally {
    await session.close();
  }
}

describe("a fresh session per call, over one kept-alive connection", () => {
  for (const [label, factory, perCall] of [
    ["stateless JSON server", statelessJsonServer, 3],
    ["stateful SSE server", statefulSseServer, 4],
  ] as const) {
    test(`${label}: three sequential calls (${perCall} requests each) use one connection`, async () => {
      const fixture = await factory();
      const { url, accepted } = await relayed(fixture);
      const pool = new ConnectionPool();
      for (const text of ["one", "two", "three"]) expect(JSON.stringify(await call(url, pool, text))).toContain(text);
      expect(fixture.requests.length).toBe(3 * perCall);
      expect(accepted()).toBe(1);
      expect(Object.values(pool.snapshot().keys)).toEqual([{ busy: 0, connections: 1 }]);
    });
  }

  test("concurrent calls open at most one connection each, and reuse them afterwards", async () => {
    const fixture = await statefulSseServer();
    const { url, accepted } = await relayed(fixture);
    const pool = new ConnectionPool();
    await Promise.all(["a", "b", "c", "d"].map((text) => call(url, pool, text)));
    const first = accepted();
    expect(first).toBeGreaterThanOrEqual(1);
    expect(first).toBeLessThanOrEqual(4);
    await Promise.all(["e", "f", "g", "h"].map((text) => call(url, pool, text)));
    await call(url, pool, "i");
    expect(accepted()).toBeLessThanOrEqual(4);
    expect(fixture.counters["tools/call"]).toBe(9);
    expect((fixture as McpFixture & { sessions(): number }).sessions()).toBe(0); // every session ended with DELETE
  });

  test("a session the server forgets (404) is re-initialised once over the same connections, and the call answers", async () => {
    const fixture = await forgetfulServer({ forgetAfter: "initialized" });
    const { url, accepted } = await relayed(fixture);
    const pool = new ConnectionPool();
    expect(JSON.stringify(await call(url, pool, "again"))).toContain("again");
    expect(fixture.counters.initialize).toBe(2);
    expect(accepted()).toBe(1);
  });
});
