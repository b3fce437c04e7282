// GET /metrics (README "Metrics"): the Prometheus text format, read back by an independent parser;
// counters move with traffic; no label value carries an id, an email, a key or a path; the
// access control holds (404 on the public port without METRICS_TOKEN, 401 without or with a wrong
// token, and METRICS_PORT serves it on a listener of its own).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { engine, seedDataDir } from "../support/db.ts";
import { rpc, tokensFor } from "../support/oauth.ts";
import { freePort, type RunningServer, startServer, tempDir } from "../support/process.ts";
import { rawRequest } from "../support/raw-http.ts";
import { rejectionOf } from "../support/settle.ts";

const TOKEN = "m".repeat(24) + "-metrics-token-0123456789";

interface Family {
  name: string;
  type: string;
  metrics: { labels?: Record<string, string>; value?: string; count?: string; buckets?: Record<string, string> }[];
}

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  app = await createTestApp({ METRICS_TOKEN: TOKEN });
  org = await seedOrg(app);
});
afterAll(() => app.close());

/**
 * A scrape read by the parser twice: whole (it throws on a malformed line, and names each family's
 * type), and without its TYPE lines, so that every sample — a histogram's `_count` series
 * included, which the parser would otherwise fold into one — keeps its own labels.
 */
async function scrape(): Promise<Family[]> {
  const res = await app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  const text = await res.text();
  const typed = parsePrometheusTextFormat(text) as Family[];
  expect(typed.find((f) => f.name === "svc_http_request_duration_seconds")?.type).toBe("HISTOGRAM");
  return [
    ...typed,
    ...(parsePrometheusTextFormat(
      text
        .split("\n")
        .filter((line) => !line.startsWith("# TYPE "))
        .join("\n"),
    ) as Family[]),
  ];
}

function family(families: Family[], name: string): Family | undefined {
  return families.find((f) => f.name === name);
}

/** The count of a histogram's series with these labels, summed over the labels not named (0 when absent). */
function countOf(families: Family[], name: string, labels: Record<string, string>): number {
  const counts = families.filter((f) => f.name === `${name}_count` && f.type === "UNTYPED").flatMap((f) => f.metrics);
  return counts.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v)).reduce((sum, m) => sum + Number(m.value), 0);
}

describe("access", () => {
  test("without the token, or with a wrong one: 401 in our error shape; with it: 200", async () => {
    for (const authorization of [undefined, "Bearer wrong", `Bearer ${TOKEN}x`, `Basic ${btoa(`x:${TOKEN}`)}`]) {
      const res = await app.request("/metrics", { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    }
    expect((await app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  test("without METRICS_TOKEN the public port has no /metrics", async () => {
    const plain = await createTestApp();
    try {
      expect((await plain.request("/metrics")).status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  test("a METRICS_TOKEN shorter than 32 characters stops the start with one line naming it", async () => {
    expect((await rejectionOf(createTestApp({ METRICS_TOKEN: "short" }))).message).toMatch(/METRICS_TOKEN/);
  });
});

describe("series move with traffic", () => {
  test("HTTP requests by route template and status class", async () => {
    const before = await scrape();
    const route = { method: "GET", route: "/healthz", status: "2xx" };
    for (let i = 0; i < 3; i++) await app.request("/healthz");
    await app.request("/no/such/path");
    const after = await scrape();
    expect(countOf(after, "svc_http_request_duration_seconds", route) - countOf(before, "svc_http_request_duration_seconds", route)).toBe(3);
    expect(countOf(after, "svc_http_request_duration_seconds", { route: "unmatched", status: "4xx" })).toBeGreaterThan(
      countOf(before, "svc_http_request_duration_seconds", { route: "unmatched", status: "4xx" }),
    );
  });

  test("tool calls by channel and outcome; model requests by provider", async () => {
    const { accessToken } = await tokensFor(app, org, "docs:read");
    const before = await scrape();
    await rpc(app, accessToken, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_docs", arguments: { query: "password" } } });
    await rpc(app, accessToken, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "search_docs", arguments: { query: 42 } } });
    const chat = await app.request("/api/sdk/chat", {
      headers: { authorization: `Bearer ${org.widget_key}` },
      json: { message: "How do I reset my password?" },
    });
    expect(chat.status).toBe(200);
    const after = await scrape();
    const tool = (outcome: string) =>
      countOf(after, "svc_tool_call_duration_seconds", { channel: "mcp", outcome }) -
      countOf(before, "svc_tool_call_duration_seconds", { channel: "mcp", outcome });
    expect(tool("ok")).toBe(1);
    expect(tool("error")).toBe(1); // arguments that fail validation
    expect(countOf(after, "svc_llm_request_duration_seconds", { provider: "builtin", outcome: "ok" })).toBeGreaterThan(
      countOf(before, "svc_llm_request_duration_seconds", { provider: "builtin", outcome: "ok" }),
    );
    // A templated route: the series says where, never which.
    expect(countOf(after, "svc_http_request_duration_seconds", { method: "POST", route: "/api/sdk/chat", status: "2xx" })).toBeGreaterThan(0);
  });

  test("the outbox depth is read from the database at scrape", async () => {
    const families = await scrape();
    expect(family(families, "svc_outbox_waiting")).toBeDefined();
    expect(family(families, "svc_outbox_oldest_due_seconds")).toBeDefined();
  });
});

describe("labels", () => {
  test("no label value is an id, an email, a key, a token or a concrete path", async () => {
    await app.request(`/api/tickets/12345`, { headers: { authorization: `Bearer ${org.widget_key}` } });
    await app.request(`/api/customers/${crypto.randomUUID()}`);
    await app.request(`/u/${"t".repeat(40)}`);
    await app.request("/api/sdk/users/identify", {
      headers: { authorization: `Bearer ${org.widget_key}` },
      json: { user_id: "ada-42", email: "ada@example.com" },
    });
    const values = (await scrape()).flatMap((f) => f.metrics.flatMap((m) => Object.values(m.labels ?? {})));
    expect(values.length).toBeGreaterThan(0);
    const leaks = values.filter(
      (v) => /[0-9a-f]{8}-[0-9a-f]{4}-/i.test(v) || /@/.test(v) || /ab_live_|svc_at_|svc_rt_/.test(v) || /\/\d{3,}|ada-42|t{40}/.test(v),
    );
    expect(leaks).toEqual([]);
    for (const route of (await scrape()).flatMap((f) => (f.name === "svc_http_request_duration_seconds" ? f.metrics.map((m) => m.labels?.route ?? "") : [])))
      expect(route === "unmatched" || !/\/\d|[0-9a-f]{8}-/.test(route)).toBe(true);
  });
});

describe.skipIf(engine !== "pglite")("METRICS_PORT", () => {
  let server: RunningServer;
  const metricsPort = freePort();
  afterAll(async () => {
    await server?.stop();
  });

  test("a listener of its own serves /metrics without a token; the public port does not serve it", async () => {
    const dataDir = tempDir();
    await seedDataDir(dataDir);
    server = await startServer({ DATA_DIR: dataDir, SEED_DEMO: "0", METRICS_PORT: String(metricsPort) });
    const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(own.status).toBe(200);
    const families = parsePrometheusTextFormat(await own.text()) as Family[];
    expect(families.some((f) => f.name === "svc_process_resident_memory_bytes" || f.name === "svc_process_cpu_seconds_total")).toBe(true);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).status).toBe(404);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  }, 120_000);

  test("its front door is the main one: no Host or a Host with userinfo is 400 in our error shape, an unknown path 404, never Bun's development error page", async () => {
    const heads = [
      "GET /metrics HTTP/1.0",
      "GET /metrics HTTP/1.1\r\nHost: user@localhost",
      "GET /metrics HTTP/1.0\r\nHost: a b",
      "GET /nope HTTP/1.1\r\nHost: 127.0.0.1",
    ];
    const answers = [];
    for (const head of heads) answers.push(await rawRequest(metricsPort, head));
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 404]);
    for (const answer of answers) {
      expect(answer.headers.get("content-type")).toStartWith("application/json");
      const body = JSON.parse(answer.body) as { error: { code: string; request_id: string } };
      expect(body.error.code).toBe(answer.status === 400 ? "validation_failed" : "not_found");
      expect(answer.body).not.toContain("/src/");
    }
    expect(answers.every((a) => a.headers.get("x-request-id"))).toBe(true);
    // The public listener too.
    const main = await rawRequest(Number(new URL(server.url).port), "GET /healthz HTTP/1.0");
    expect(main.status).toBe(400);
    expect(main.body).not.toContain("/src/");
  });
});
