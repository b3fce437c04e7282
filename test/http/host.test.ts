// The outer handler's refusals (src/http/handler.ts): a missing or malformed Host (400), a Host that
// is not ours while BASE_URL is on loopback (DNS rebinding, the MCP conformance
// dns-rebinding-protection scenario), and control characters in the path or query.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHandler, isLoopbackHostname } from "../../src/http/handler.ts";
import { createLogger } from "../../src/log.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { rawRequest } from "../support/raw-http.ts";

type ErrorBody = { error: { code: string; message: string; request_id: string } };

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

/** The outer handler alone, in front of a route that always answers 200. */
const bare = (baseUrl: string) => createHandler(() => new Response("ok"), { log: createLogger("silent"), trustProxy: false, baseUrl });

describe("Host check while BASE_URL is loopback (http://localhost:3000)", () => {
  const withHost = (host: string, init: RequestInit = {}) =>
    app.handle(new Request(`http://${host}/api/mcp`, { ...init, headers: { host, accept: "application/json", ...(init.headers as Record<string, string>) } }));

  test("DNS rebinding: Host evil.example.com with a matching Origin is 421 naming the expected host", async () => {
    const res = await withHost("evil.example.com:3000", {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
      headers: { origin: "http://evil.example.com:3000", "content-type": "application/json" },
    });
    expect(res.status).toBe(421);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("misdirected_request");
    expect(body.error.message).toContain("localhost:3000");
    expect(body.error.message).toContain("evil.example.com");
    expect(body.error.request_id).toBe(res.headers.get("x-request-id")!);
  });

  test("a browser asking for a page on a LAN address gets a page naming and linking the expected origin", async () => {
    const res = await app.handle(
      new Request("http://192.168.1.20:3000/signin", { headers: { host: "192.168.1.20:3000", accept: "text/html,application/xhtml+xml" } }),
    );
    expect(res.status).toBe(421);
    expect(res.headers.get("content-type")).toContain("text/html");
    const page = await res.text();
    expect(page).toContain("localhost:3000 (its BASE_URL)");
    expect(page).toContain('href="http://localhost:3000/"');
  });

  test("a LAN address is refused too, with the hint", async () => {
    const res = await withHost("192.168.1.20:3000");
    expect(res.status).toBe(421);
    expect(((await res.json()) as ErrorBody).error.message).toContain("BASE_URL");
  });

  test("BASE_URL's host and every loopback name or address are served, on any port", async () => {
    for (const host of ["localhost:3000", "LOCALHOST:3000", "localhost", "127.0.0.1:3000", "127.1.2.3:8080", "[::1]:3000", "app.localhost:3000"]) {
      const res = await withHost(host);
      expect([host, res.status]).toEqual([host, 200]);
    }
  });

  test("a public BASE_URL does no Host check (the reverse proxy in front owns that)", async () => {
    const res = await bare("https://agents.example.com")(new Request("http://10.0.0.8/healthz", { headers: { host: "10.0.0.8" } }));
    expect(res.status).toBe(200);
  });

  test("loopback names", () => {
    for (const yes of ["localhost", "a.localhost", "localhost.", "127.0.0.1", "127.255.0.9", "[::1]"])
      expect([yes, isLoopbackHostname(yes)]).toEqual([yes, true]);
    for (const no of ["localhost.example.com", "evil.example.com", "128.0.0.1", "0.0.0.0", "127.0.0.1.nip.io", "10.0.0.1"])
      expect([no, isLoopbackHostname(no)]).toEqual([no, false]);
  });
});

describe("over a real socket (BASE_URL http://127.0.0.1:<port>)", () => {
  test("the Host header a client sends is what is checked", async () => {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request, srv) => handle(request, srv) });
    const url = `http://127.0.0.1:${server.port}`;
    const handle = bare(url);
    try {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const rebound = await fetch(`${url}/healthz`, { headers: { host: `evil.example.com:${server.port}` } });
      expect(rebound.status).toBe(421);
      expect(((await rebound.json()) as ErrorBody).error.message).toContain(`127.0.0.1:${server.port}`);
      expect((await fetch(`${url}/healthz`, { headers: { host: `localhost:${server.port}` } })).status).toBe(200);
    } finally {
      server.stop(true);
    }
  });
});

describe("control characters in the path or query", () => {
  test("%00 or another C0 control in a query value or name is 400 validation_failed", async () => {
    for (const query of ["q=a%00b", "a%00=1", "q=%1b", "q=%01", "return_to=%2F%00"]) {
      const res = await app.request(`/signin?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      expect(((await res.json()) as ErrorBody).error.code).toBe("validation_failed");
    }
  });

  test("tab, CR and LF are accepted in query values", async () => {
    expect((await app.request("/signin?return_to=%2Fa%09b%0D%0Ac")).status).toBe(200);
  });

  test("any control character in the path is 400", async () => {
    for (const path of ["/api/docs/%00", "/api/docs/a%0Ab", "/api/docs/%7f"]) {
      const res = await app.request(path);
      expect([path, res.status]).toEqual([path, 400]);
    }
  });
});

describe("a request without a usable Host (RFC 9112 section 3.2)", () => {
  /** Sends each raw request to `handle` listening on a loopback port; the answers in order. */
  async function overSocket(handle: (request: Request, server: any) => Promise<Response>, heads: string[]) {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request, srv) => handle(request, srv) });
    try {
      const answers = [];
      for (const head of heads) answers.push(await rawRequest(server.port!, head));
      return answers;
    } finally {
      server.stop(true);
    }
  }

  const HEADS = [
    "GET /healthz HTTP/1.0",
    "GET /healthz HTTP/1.1\r\nHost: user@localhost",
    "GET /api/me HTTP/1.0\r\nHost: user@localhost:3000",
    "GET /healthz HTTP/1.0\r\nHost: ",
    "GET /healthz HTTP/1.0\r\nHost: a b",
    "GET /healthz HTTP/1.0\r\nHost: localhost:99999",
    "POST /api/auth/session HTTP/1.0\r\nContent-Length: 0",
  ];

  test("is 400 in our error shape and logged like any request (the app, BASE_URL on loopback)", async () => {
    const before = app.logs.length;
    const answers = await overSocket(app.handle, HEADS);
    expect(answers.map((a) => a.status)).toEqual(HEADS.map(() => 400));
    for (const answer of answers) {
      const body = JSON.parse(answer.body) as ErrorBody & { error: { details: { path: string }[] } };
      expect(body.error.code).toBe("validation_failed");
      expect(body.error.message).toContain("Host");
      expect(body.error.details).toEqual([expect.objectContaining({ path: "/headers/host" })]);
      expect(body.error.request_id).toBe(answer.headers.get("x-request-id")!);
    }
    const lines = app.logs.slice(before).filter((l) => l.msg === "request");
    expect(lines.map((l) => [l.status, l.request_id])).toEqual(answers.map((a) => [400, a.headers.get("x-request-id")]));
    expect(lines.map((l) => l.path)).toEqual(["/healthz", "/healthz", "/api/me", "/healthz", "/healthz", "/healthz", "/api/auth/session"]);
  });

  test("is 400 with a public BASE_URL too, where no other Host check runs", async () => {
    const lines: string[] = [];
    const handle = createHandler(() => new Response("ok"), {
      log: createLogger("info", (l) => lines.push(l)),
      trustProxy: false,
      baseUrl: "https://agents.example.com",
    });
    const answers = await overSocket(handle, HEADS);
    expect(answers.map((a) => a.status)).toEqual(HEADS.map(() => 400));
    expect(lines.map((l) => JSON.parse(l).status)).toEqual(HEADS.map(() => 400));
  });

  test("a Host header that is not host[:port] is 400, not parsed (userinfo, paths, bad ports)", async () => {
    for (const host of [
      "evil.example.com@localhost:3000",
      "localhost:3000/x",
      "localhost:abc",
      "evil.example.com\\@localhost",
      "localhost:99999",
      "[::1",
      "",
    ]) {
      const res = await app.handle(new Request("http://localhost:3000/healthz", { headers: { host } }));
      expect([host, res.status]).toEqual([host, 400]);
    }
  });

  test("a well-formed Host is served: names with _ or ~, IPv6 literals, any port", async () => {
    for (const host of ["agents_1.internal:3000", "a~b.example", "[::1]:3000", "10.0.0.8", "agents.example.com:443"]) {
      const res = await bare("https://agents.example.com")(new Request("http://x/healthz", { headers: { host } }));
      expect([host, res.status]).toEqual([host, 200]);
    }
  });
});
