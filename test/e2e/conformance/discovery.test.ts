// Discovery: RFC 9728 protected-resource metadata and RFC 8414 authorization-server metadata
// (docs/interface.md 4.3, docs/interface.md A.4, A.7, A.8).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SCOPES } from "../../../src/oauth/scopes.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { expectNoNull, issuerOf, resourceOf, SETUP_TIMEOUT } from "./helpers.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, SETUP_TIMEOUT);
afterAll(() => app.close());

const PRM_ROOT = "/.well-known/oauth-protected-resource";
const PRM_PATH = "/.well-known/oauth-protected-resource/api/mcp";
const ASM = "/.well-known/oauth-authorization-server";

async function getJson(a: TestApp, path: string): Promise<{ res: Response; body: Record<string, unknown> }> {
  const res = await a.request(path);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  return { res, body: (await res.json()) as Record<string, unknown> };
}

describe("protected-resource metadata (RFC 9728)", () => {
  test("RFC 9728 section 3.1 / docs/interface.md A.4: served at both the root and the path-aware well-known URI, identically", async () => {
    const root = await getJson(app, PRM_ROOT);
    const pathAware = await getJson(app, PRM_PATH);
    expect(pathAware.body).toEqual(root.body);
  });

  for (const path of [PRM_ROOT, PRM_PATH]) {
    test(`RFC 9728 section 2 / docs/interface.md A.4: ${path} names resource <BASE_URL>/api/mcp, authorization_servers [issuer], scopes, bearer_methods ["header"]`, async () => {
      const { body } = await getJson(app, path);
      expect(body.resource).toBe("http://localhost:3000/api/mcp");
      expect(body.resource).toBe(resourceOf(app));
      expect(body.authorization_servers).toEqual(["http://localhost:3000"]);
      expect(body.scopes_supported).toEqual(Object.keys(SCOPES));
      expect(body.bearer_methods_supported).toEqual(["header"]);
      expectNoNull(body);
    });
  }

  test("RFC 9728 section 3.3: resource equals the URL the path-aware metadata URL was built from", async () => {
    const { body } = await getJson(app, PRM_PATH);
    // The client inserted /.well-known/oauth-protected-resource between host and /api/mcp.
    const derived = `${app.deps.config.baseUrl}${PRM_PATH.replace("/.well-known/oauth-protected-resource", "")}`;
    expect(body.resource).toBe(derived);
    expect(String(body.resource).endsWith("/")).toBe(false);
  });

  test("docs/interface.md 4.3: protected-resource metadata carries Cache-Control: public, max-age=300", async () => {
    for (const path of [PRM_ROOT, PRM_PATH]) {
      const res = await app.request(path);
      expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    }
  });
});

describe("authorization-server metadata (RFC 8414)", () => {
  test("RFC 8414 section 3.3 / docs/interface.md A.7: issuer is byte-equal to authorization_servers[0]", async () => {
    const prm = await getJson(app, PRM_PATH);
    const asm = await getJson(app, ASM);
    const servers = prm.body.authorization_servers as string[];
    expect(asm.body.issuer).toBe(servers[0]!);
    expect(asm.body.issuer).toBe(issuerOf(app));
    // RFC 8414 section 3: the metadata URL is the issuer with the well-known suffix inserted.
    expect(`${asm.body.issuer}${ASM}`).toBe(`${app.deps.config.baseUrl}${ASM}`);
  });

  test("RFC 8414 section 2: every endpoint is an absolute URL under BASE_URL", async () => {
    const { body } = await getJson(app, ASM);
    expect(body.authorization_endpoint).toBe("http://localhost:3000/api/mcp/oauth/authorize");
    expect(body.token_endpoint).toBe("http://localhost:3000/api/mcp/oauth/token");
    expect(body.registration_endpoint).toBe("http://localhost:3000/api/mcp/oauth/register");
    expect(body.revocation_endpoint).toBe("http://localhost:3000/api/mcp/oauth/revoke");
  });

  test("RFC 8414 section 2: the advertised endpoints are live on this server", async () => {
    const { body } = await getJson(app, ASM);
    const path = (key: string) => new URL(body[key] as string).pathname;
    // Each answers as an OAuth endpoint (not 404) to an empty request.
    const authorize = await app.request(path("authorization_endpoint"));
    expect(authorize.status).toBe(400);
    expect(await authorize.text()).toContain("client_id is missing");
    for (const key of ["token_endpoint", "revocation_endpoint"]) {
      const res = await app.request(path(key), { form: { probe: "1" } });
      expect(res.status).toBeOneOf([400, 401]);
      expect(typeof ((await res.json()) as { error: unknown }).error).toBe("string");
    }
    const register = await app.request(path("registration_endpoint"), { json: {}, ip: "192.0.2.200" });
    expect(register.status).toBe(400);
    expect(((await register.json()) as { error: unknown }).error).toBe("invalid_redirect_uri");
  });

  test('RFC 8414 section 2: response_types_supported ["code"], grant types authorization_code and refresh_token, code_challenge_methods ["S256"]', async () => {
    const { body } = await getJson(app, ASM);
    expect(body.response_types_supported).toEqual(["code"]);
    expect([...(body.grant_types_supported as string[])].sort()).toEqual(["authorization_code", "refresh_token"]);
    expect(body.code_challenge_methods_supported).toEqual(["S256"]);
  });

  test("RFC 8414 section 2 / docs/interface.md 4.4: token and revocation endpoint auth methods are none, client_secret_basic, client_secret_post", async () => {
    const { body } = await getJson(app, ASM);
    expect([...(body.token_endpoint_auth_methods_supported as string[])].sort()).toEqual(["client_secret_basic", "client_secret_post", "none"]);
    expect([...(body.revocation_endpoint_auth_methods_supported as string[])].sort()).toEqual(["client_secret_basic", "client_secret_post", "none"]);
  });

  test("RFC 8414 section 2: registration_endpoint and scopes_supported (same scopes as the resource metadata)", async () => {
    const asm = await getJson(app, ASM);
    const prm = await getJson(app, PRM_ROOT);
    expect(typeof asm.body.registration_endpoint).toBe("string");
    expect(asm.body.scopes_supported).toEqual(Object.keys(SCOPES));
    expect(asm.body.scopes_supported).toEqual(prm.body.scopes_supported);
  });

  test("RFC 9207 section 3: authorization_response_iss_parameter_supported is true", async () => {
    const { body } = await getJson(app, ASM);
    expect(body.authorization_response_iss_parameter_supported).toBe(true);
  });

  test("docs/interface.md A.8: no null anywhere in the authorization-server metadata", async () => {
    const { body } = await getJson(app, ASM);
    expectNoNull(body);
  });

  test("docs/interface.md 4.3: authorization-server metadata carries Cache-Control: public, max-age=300", async () => {
    const res = await app.request(ASM);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
  });
});

test(
  "RFC 8414 section 2 / RFC 9728 section 2: both documents follow BASE_URL rather than a fixed host",
  async () => {
    const other = await createTestApp({ BASE_URL: "https://agents.example.com" });
    try {
      const prm = await getJson(other, PRM_PATH);
      const asm = await getJson(other, ASM);
      expect(prm.body.resource).toBe("https://agents.example.com/api/mcp");
      expect(prm.body.authorization_servers).toEqual(["https://agents.example.com"]);
      expect(asm.body.issuer).toBe("https://agents.example.com");
      for (const key of ["authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"])
        expect(asm.body[key] as string).toStartWith("https://agents.example.com/api/mcp/oauth/");
    } finally {
      await other.close();
    }
  },
  SETUP_TIMEOUT,
);
