// The shared kit (src/kit): one copy of each small rule, each checked here at
// its edges, and the id check seen from a route (36 hyphens used to reach the database as a 500).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bearerToken } from "../../src/kit/bearer.ts";
import { cookieValue } from "../../src/kit/cookies.ts";
import { isFeatureFlag } from "../../src/kit/flags.ts";
import { isUuid } from "../../src/kit/ids.ts";
import { isKnownProtocolVersion } from "../../src/kit/mcp.ts";
import { createPasswordHasher } from "../../src/kit/passwords.ts";
import { createSingleFlight } from "../../src/kit/single-flight.ts";
import { isSlug, SLUG_RULE } from "../../src/kit/slugs.ts";
import { isTimeout } from "../../src/kit/timeouts.ts";
import { realTimers } from "../../src/kit/timers.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

describe("small rules", () => {
  test("ids: any UUID version, either case; nothing else", () => {
    expect(isUuid("0b7c5e0a-5b1e-4c2a-9d3f-0123456789ab")).toBe(true);
    expect(isUuid("0B7C5E0A-5B1E-4C2A-9D3F-0123456789AB")).toBe(true);
    expect(isUuid("-".repeat(36))).toBe(false);
    expect(isUuid("0b7c5e0a5b1e4c2a9d3f0123456789ab")).toBe(false);
    expect(isUuid("0b7c5e0a-5b1e-4c2a-9d3f-0123456789ab ")).toBe(false);
    expect(isUuid("0b7c5e0a-5b1e-4c2a-9d3f-0123456789ag")).toBe(false);
  });

  test("slugs: a lower-case letter, then up to 31 of a-z 0-9 _", () => {
    expect(isSlug("a")).toBe(true);
    expect(isSlug(`a${"b".repeat(31)}`)).toBe(true);
    expect(isSlug(`a${"b".repeat(32)}`)).toBe(false);
    for (const bad of ["", "1a", "_a", "A", "a.b", "a-b", "ä"]) expect(isSlug(bad)).toBe(false);
    expect(SLUG_RULE).toBe("must match ^[a-z][a-z0-9_]{0,31}$");
  });

  test("bearer: the scheme in any case, exactly one token", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer   abc")).toBe("abc");
    expect(bearerToken("Bearer")).toBeNull();
    expect(bearerToken("Bearer a b")).toBeNull();
    expect(bearerToken("Basic abc")).toBeNull();
    expect(bearerToken(null)).toBeNull();
  });

  test("cookies: the first decodable value of the name; an undecodable one is skipped, never thrown", () => {
    const read = (header: string | null, name = "s") => cookieValue(new Request("http://x/", { headers: header === null ? {} : { cookie: header } }), name);
    expect(read("s=a%20b")).toBe("a b");
    expect(read("t=1; s=x=y")).toBe("x=y");
    expect(read("s=%E0%A4%A")).toBeUndefined();
    expect(read("s=%E0%A4%A; s=ok")).toBe("ok");
    expect(read("ss=1; s2=2")).toBeUndefined();
    expect(read(null)).toBeUndefined();
  });

  test("timeouts: a fired deadline or an abort, not other failures", async () => {
    const expired = AbortSignal.timeout(1);
    await Bun.sleep(20);
    const fired = await fetch("http://127.0.0.1:9", { signal: expired }).catch((e: unknown) => e);
    expect((fired as Error).name).toBe("TimeoutError");
    expect(isTimeout(fired)).toBe(true);
    expect(isTimeout(new DOMException("gone", "AbortError"))).toBe(true);
    expect(isTimeout(new Error("connection refused"))).toBe(false);
    expect(isTimeout("TimeoutError")).toBe(false);
    const signal = realTimers.deadline(1);
    await Bun.sleep(20);
    expect(isTimeout(signal.reason)).toBe(true);
  });

  test("feature flags and MCP versions: only the known names", () => {
    expect(isFeatureFlag("mcp_external_servers")).toBe(true);
    expect(isFeatureFlag("toString")).toBe(false);
    expect(isKnownProtocolVersion("2025-03-26")).toBe(true);
    expect(isKnownProtocolVersion("2025-03-27")).toBe(false);
  });

  test("single flight: callers of one key share one run; the next call after it settles runs again", async () => {
    const flight = createSingleFlight<number>();
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const work = async () => {
      runs++;
      await gate;
      return runs;
    };
    const both = Promise.all([flight.run("k", work), flight.run("k", work), flight.run("other", async () => -1)]);
    release();
    expect(await both).toEqual([1, 1, -1]);
    expect(await flight.run("k", async () => 7)).toBe(7);
  });

  test("passwords: the hash carries its parameters; the dummy has the same ones", async () => {
    const hasher = createPasswordHasher({ memoryCost: 1024, timeCost: 1 });
    const hash = await hasher.hash("correct horse");
    expect(hash).toStartWith("$argon2id$v=19$m=1024,t=1,");
    expect(await hasher.verify("correct horse", hash)).toBe(true);
    expect(await hasher.verify("wrong", hash)).toBe(false);
    expect(await hasher.dummy()).toStartWith("$argon2id$v=19$m=1024,t=1,");
  });
});

describe("the id check from a route", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  test("an id of 36 hyphens is 404, not a database error", async () => {
    const org = await seedOrg(app, { flags: ["mcp_external_servers"] });
    const auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
    for (const path of [`/api/integrations/mcp/servers/${"-".repeat(36)}`, `/api/integrations/custom-actions/${"-".repeat(36)}`]) {
      const res = await app.request(path, { method: "DELETE", headers: auth });
      expect(res.status).toBe(404);
    }
    expect((await app.request(`/api/oauth/grants/${"-".repeat(36)}`, { method: "DELETE", headers: auth })).status).toBe(404);
  });
});
