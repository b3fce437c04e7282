// Credentials at rest (docs/interface.md 2.1, 8.2.5): every field encrypted on its own (AES-256-GCM, the
// row id and field name as associated data), never in the clear in the row or the logs, and a
// ciphertext copied to another row does not decrypt there.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { connectors } from "../../src/db/schema/index.ts";
import type { TestApp } from "../support/app.ts";
import { bearerServer, type McpFixture, oauthProtectedServer, type OAuthFixture } from "../support/mcp-servers.ts";
import { connectOk, connectorRow, devApp, fixtures, type Org, refreshOk } from "./helpers.ts";

let app: TestApp;
let auth: Record<string, string>;
let _org: Org;
let bearer: McpFixture;
let oauth: OAuthFixture;
const TOKEN = `bearer-plaintext-${crypto.randomUUID()}`;
const SECRET = `client-secret-${crypto.randomUUID()}`;
const running = fixtures();

beforeAll(async () => {
  ({ app, org: _org, auth } = await devApp());
  bearer = await running.start(bearerServer({ token: TOKEN }));
  oauth = await running.start(oauthProtectedServer({ clientSecret: SECRET }));
});
afterAll(async () => {
  await running.stopAll();
  await app.close();
});

const context = (id: string, field: string) => `connectors.credentials.${field}:${id}`;

describe("credentials at rest", () => {
  test("bearer: the token is stored as v1. ciphertext, never in the clear (row or logs)", async () => {
    const created = await connectOk(app, auth, { name: "Bearer", slug: "bearer_rest", url: bearer.url, auth_method: "bearer", credentials: { token: TOKEN } });
    expect(created.status).toBe("connected");
    const row = await connectorRow(app, created.id);
    expect(Object.keys(row.credentials)).toEqual(["token"]);
    expect(row.credentials.token).toStartWith("v1.");
    expect(JSON.stringify(row)).not.toContain(TOKEN);
    expect(app.deps.cipher.decrypt(row.credentials.token!, context(created.id, "token"))).toBe(TOKEN);
    expect(app.rawLogs.join("\n")).not.toContain(TOKEN);
  });

  test("oauth2: every field encrypted, none in the clear", async () => {
    const pair = oauth.issue();
    const credentials = { ...pair, client_id: oauth.clientId, client_secret: SECRET };
    const created = await connectOk(app, auth, { name: "OAuth", slug: "oauth_rest", url: oauth.url, auth_method: "oauth2", credentials });
    expect(created.status).toBe("connected");
    const row = await connectorRow(app, created.id);
    expect(Object.keys(row.credentials).sort()).toEqual(["access_token", "client_id", "client_secret", "refresh_token"]);
    const text = JSON.stringify(row);
    for (const [field, plaintext] of Object.entries(credentials)) {
      expect(row.credentials[field]).toStartWith("v1.");
      expect(text).not.toContain(plaintext);
      expect(app.deps.cipher.decrypt(row.credentials[field]!, context(created.id, field))).toBe(plaintext);
    }
    // Two encryptions of one value differ (fresh IV per value).
    const again = await refreshOk(app, auth, created.id, { auth_method: "oauth2", credentials });
    expect(again.status).toBe("connected");
    expect((await connectorRow(app, created.id)).credentials.access_token).not.toBe(row.credentials.access_token);
    for (const plaintext of Object.values(credentials)) expect(app.rawLogs.join("\n")).not.toContain(plaintext);
  });

  test("a ciphertext copied to another row (or another field) fails to decrypt, and that connector cannot use it", async () => {
    const a = await connectOk(app, auth, { name: "A", slug: "copy_a", url: bearer.url, auth_method: "bearer", credentials: { token: TOKEN } });
    const b = await connectOk(app, auth, { name: "B", slug: "copy_b", url: bearer.url, auth_method: "bearer", credentials: { token: "b-has-its-own-token" } });
    expect(a.status).toBe("connected");
    expect(b.status).toBe("error"); // wrong token for this server
    const stolen = (await connectorRow(app, a.id)).credentials.token!;
    expect(() => app.deps.cipher.decrypt(stolen, context(b.id, "token"))).toThrow();
    expect(() => app.deps.cipher.decrypt(stolen, context(a.id, "access_token"))).toThrow();
    // Put A's ciphertext (of the RIGHT token for the server) into B's row: B still cannot connect.
    await app.deps.db
      .update(connectors)
      .set({ credentials: { token: stolen } })
      .where(eq(connectors.id, b.id));
    const sentWithToken = () => bearer.requests.filter((r) => r.headers.authorization === `Bearer ${TOKEN}`).length;
    const sentBefore = sentWithToken();
    const refreshed = await refreshOk(app, auth, b.id);
    expect(refreshed.status).toBe("error");
    expect(refreshed.last_error).toBeString();
    expect(sentWithToken()).toBe(sentBefore); // the token never left for B
    const unauthorizedBefore = bearer.counters.unauthorized ?? 0;
    // A's row still works with its own ciphertext.
    expect((await refreshOk(app, auth, a.id)).status).toBe("connected");
    expect(bearer.counters.unauthorized ?? 0).toBe(unauthorizedBefore);
  });

  test("a tampered ciphertext fails to decrypt", async () => {
    const created = await connectOk(app, auth, { name: "T", slug: "tampered", url: bearer.url, auth_method: "bearer", credentials: { token: TOKEN } });
    const value = (await connectorRow(app, created.id)).credentials.token!;
    const [v, iv, body] = value.split(".");
    const flipped = `${v}.${iv}.${body!.slice(0, -2)}${body!.endsWith("AA") ? "AB" : "AA"}`;
    expect(() => app.deps.cipher.decrypt(flipped, context(created.id, "token"))).toThrow();
  });
});
