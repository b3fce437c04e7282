// A redirect URI with CR/LF or another control character is refused at registration, not
// stored raw to be written into a Location header later.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { redirectUriProblem } from "../../../src/oauth/checks/redirect-uri.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";

const BAD = [
  "https://client.example/cb\r\nSet-Cookie: a=b",
  "https://client.example/cb\n",
  "https://client.example/c\tb",
  "\u0000https://client.example/cb",
  "https://client.example/cb\u0007",
  "https://client.example/cb\u007f",
  "https://client.example/cb\u0085",
  " https://client.example/cb",
  "https://client.example/a b",
  "http://127.0.0.1:9/cb\r\n",
  "com.example.app:/cb\u001b",
];

describe("redirectUriProblem", () => {
  test("raw control characters, space, DEL and C1 are refused", () => {
    for (const uri of BAD) expect([uri, redirectUriProblem(uri)]).toEqual([uri, expect.stringContaining("control characters")]);
  });

  test("percent-encoded octets and ordinary URIs are fine", () => {
    for (const uri of ["https://client.example/cb?x=%0D%0A", "http://127.0.0.1:9/callback", "com.example.app:/oauth", "https://client.example/cb?a=b&c=%20"]) {
      expect([uri, redirectUriProblem(uri)]).toEqual([uri, null]);
    }
  });
});

describe("POST /api/mcp/oauth/register", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  test("a redirect URI with CR/LF, tab, space, DEL or C1 is 400 invalid_redirect_uri; other C0 controls are refused by the JSON parser (invalid_client_metadata)", async () => {
    for (const uri of BAD) {
      const res = await app.request("/api/mcp/oauth/register", {
        json: { client_name: "c", redirect_uris: [uri], token_endpoint_auth_method: "none" },
        ip: "198.51.100.40",
      });
      expect([uri, res.status]).toEqual([uri, 400]);
      const body = (await res.json()) as { error: string; error_description: string };
      const parserRefuses = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(uri);
      expect([uri, body.error]).toEqual([uri, parserRefuses ? "invalid_client_metadata" : "invalid_redirect_uri"]);
    }
  });
});
