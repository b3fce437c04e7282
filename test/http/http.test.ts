// Cross-cutting HTTP behaviour: the error shape, body limits, request ids, CORS and the access log.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { BODY_LIMITS } from "../../src/http/body.ts";
import { errorHandling } from "../../src/http/errors.ts";
import { clientIp, createHandler } from "../../src/http/handler.ts";
import { createLogger } from "../../src/log.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

type ErrorBody = { error: { code: string; message: string; details?: { path: string; message: string }[]; request_id: string } };

describe("error shape", () => {
  test("unknown route → 404 JSON", async () => {
    const res = await app.request("/api/nothing-here");
    expect(res.status).toBe(404);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("not_found");
    expect(body.error.request_id).toBe(res.headers.get("x-request-id")!);
  });

  test("TypeBox validation failure → 400 (not Elysia's 422) with JSON-pointer details", async () => {
    const res = await app.request("/api/auth/session", { json: { email: 42, password: "" } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("validation_failed");
    const paths = body.error.details!.map((d) => d.path);
    expect(paths).toContain("/email");
    expect(paths).toContain("/password");
  });

  test("a validation failure's message names the part of the request that failed: query, path or body", async () => {
    const org = await seedOrg(app);
    const headers = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
    const failure = async (res: Response) => {
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as ErrorBody;
      expect(error.code).toBe("validation_failed");
      return { message: error.message, paths: error.details!.map((d) => d.path) };
    };
    // A number Elysia reads from text and then finds out of range (it reports no part for these).
    expect(await failure(await app.request("/api/activity?limit=0", { headers }))).toEqual({ message: "The request query is invalid.", paths: ["/limit"] });
    // A header whose text reads as the same value is not the failing field: Elysia checks no header here.
    expect(await failure(await app.request("/api/activity?limit=0", { headers: { ...headers, "x-zero": "0", dnt: "0" } }))).toEqual({
      message: "The request query is invalid.",
      paths: ["/limit"],
    });
    // A value that is not a number at all.
    expect(await failure(await app.request("/api/activity?limit=abc", { headers }))).toEqual({ message: "The request query is invalid.", paths: ["/limit"] });
    // A path parameter.
    expect((await failure(await app.request(`/api/oauth/grants/${"x".repeat(65)}`, { method: "DELETE", headers }))).message).toBe(
      "The request path is invalid.",
    );
    expect((await failure(await app.request("/api/auth/session", { json: { email: 42, password: "" } }))).message).toBe("The request body is invalid.");
  });

  test("malformed JSON → 400 invalid_json; unsupported media type → 415", async () => {
    const res = await app.request("/api/auth/session", { method: "POST", body: "{nope", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.code).toBe("invalid_json");
    const xml = await app.request("/api/auth/session", { method: "POST", body: "<a/>", headers: { "content-type": "application/xml" } });
    expect(xml.status).toBe(415);
  });

  test("an unexpected error → 500 with the request id and nothing of the cause", async () => {
    const lines: string[] = [];
    const log = createLogger("debug", (l) => lines.push(l));
    const broken = new Elysia().use(errorHandling(log)).get("/boom", () => {
      throw new Error("connection to 10.0.0.5 refused: password=hunter2");
    });
    const handle = createHandler(broken.fetch, { log, trustProxy: false });
    const res = await handle(new Request("http://localhost/boom", { headers: { "x-request-id": "req-123" } }));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("10.0.0.5");
    expect(text).not.toContain("hunter2");
    expect((JSON.parse(text) as ErrorBody).error).toMatchObject({ code: "internal_error", request_id: "req-123" });
    expect(lines.some((l) => l.includes("unhandled error") && l.includes("req-123"))).toBe(true);
  });
});

describe("body limits", () => {
  const limitOf = (prefix: string) => BODY_LIMITS.find((l) => l.prefix === prefix)!.bytes;
  const limit = limitOf("/api/");

  function bodyOfSize(size: number): string {
    const prefix = '{"email":"a@example.com","password":"';
    const suffix = '"}';
    return prefix + "x".repeat(size - prefix.length - suffix.length) + suffix;
  }

  test(`exactly ${limit} bytes is read (and then validated), one more is 413`, async () => {
    const at = await app.request("/api/auth/session", { method: "POST", body: bodyOfSize(limit), headers: { "content-type": "application/json" } });
    expect(at.status).toBe(400); // parsed, then refused by the password's maxLength
    expect(((await at.json()) as ErrorBody).error.code).toBe("validation_failed");
    const over = await app.request("/api/auth/session", { method: "POST", body: bodyOfSize(limit + 1), headers: { "content-type": "application/json" } });
    expect(over.status).toBe(413);
    expect(((await over.json()) as ErrorBody).error.code).toBe("payload_too_large");
  });

  test("a chunked body with no Content-Length is capped too", async () => {
    const chunk = new TextEncoder().encode("x".repeat(8192));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > limit * 2) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await app.handle(
      new Request("http://localhost:3000/api/auth/session", { method: "POST", body: stream, headers: { "content-type": "application/json" } }),
    );
    expect(res.status).toBe(413);
  });

  test("pages have a smaller cap than APIs", () => {
    expect(limitOf("/")).toBeLessThan(limitOf("/api/"));
  });
});

describe("request ids", () => {
  test("a well-formed X-Request-Id is kept and echoed; a bad one is replaced", async () => {
    const kept = await app.request("/healthz", { headers: { "x-request-id": "abc-123.XYZ" } });
    expect(kept.headers.get("x-request-id")).toBe("abc-123.XYZ");
    const replaced = await app.request("/healthz", { headers: { "x-request-id": "bad id\twith spaces" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const generated = await app.request("/healthz");
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("client IP comes from X-Forwarded-For only when the proxy is trusted", () => {
    const request = new Request("http://localhost/", { headers: { "x-forwarded-for": "203.0.113.9, 10.0.0.1" } });
    expect(clientIp(request, undefined, true)).toBe("203.0.113.9");
    expect(clientIp(request, undefined, false)).toBe("unknown");
  });
});

describe("CORS", () => {
  test("preflight allows the headers MCP clients send and exposes ours", async () => {
    const res = await app.request("/api/auth/session", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("mcp-protocol-version");
    const plain = await app.request("/healthz", { headers: { origin: "https://app.example" } });
    expect(plain.headers.get("vary")).toBeNull(); // never `Vary: *`, which would make every response uncacheable
    expect(plain.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("www-authenticate");
    expect(plain.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("x-ratelimit-remaining");
  });
});

describe("health", () => {
  test("/healthz and /readyz", async () => {
    expect(await (await app.request("/healthz")).json()).toEqual({ status: "ok" });
    const ready = await app.request("/readyz");
    expect(ready.status).toBe(200);
  });

  test("/readyz is 503 when the database does not answer; /healthz stays 200", async () => {
    const down = await createTestApp();
    await down.database.close();
    const res = await down.request("/readyz");
    expect(res.status).toBe(503);
    expect(((await res.json()) as { status: string }).status).toBe("database_unavailable");
    expect((await down.request("/healthz")).status).toBe(200);
  });
});

describe("access log", () => {
  test("one line per request with id, method, path, status, duration — and no secret ever", async () => {
    const org = await seedOrg(app, { password: "correct-horse-battery-staple" });
    const token = await signIn(app, org.admin_email, org.password);
    await app.request("/api/me", { headers: { authorization: `Bearer ${token}` } });
    await app.request("/signin?return_to=/x", {});
    const form = await app.request("/signin", { form: { email: org.admin_email, password: org.password } });
    const cookie = form.headers.get("set-cookie")!.split(";")[0]!.split("=")[1]!;
    await app.request("/api/auth/session", { json: { email: org.admin_email, password: "wrong-horse-battery" } });
    await app.request("/api/me", { headers: { "x-request-id": "trace-me", authorization: `Bearer ${token}` } });

    const requestLines = app.logs.filter((l) => l.msg === "request");
    const traced = requestLines.find((l) => l.request_id === "trace-me")!;
    expect(traced).toMatchObject({ level: "info", method: "GET", path: "/api/me", status: 200 });
    expect(typeof traced.duration_ms).toBe("number");
    expect(requestLines.some((l) => l.path === "/signin" && l.status === 303)).toBe(true);
    expect(requestLines.every((l) => !String(l.path).includes("?"))).toBe(true);

    const everything = app.rawLogs.join("\n");
    for (const secret of [org.password, "wrong-horse-battery", token, cookie, org.identity_secret, org.admin_email]) {
      expect(everything).not.toContain(secret);
    }
  });

  test("secret-looking fields are redacted even if a caller passes them", () => {
    const lines: string[] = [];
    const log = createLogger("info", (l) => lines.push(l));
    log.info("oops", { password: "p", access_token: "t", Authorization: "Bearer x", client_secret: "s", ok: 1 });
    log.debug("hidden at info level");
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!);
    expect(record).toMatchObject({ password: "[redacted]", access_token: "[redacted]", Authorization: "[redacted]", client_secret: "[redacted]", ok: 1 });
  });
});
