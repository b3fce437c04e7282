// Access-token lifetime and validity as the tool server sees it (docs/interface.md 2.4 "1 hour",
// docs/interface.md 8.1; RFC 6749 section 5.1 expires_in; docs/interface.md A.6 expired or revoked → not accepted).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { memberships } from "../../../src/db/schema/index.ts";
import { verifyAccessToken } from "../../support/oauth.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { expectOAuthError, obtainTokens, refresh, registerClient, signedInMember, SETUP_TIMEOUT } from "./helpers.ts";

describe("OAUTH_ACCESS_TOKEN_TTL_SECONDS=60", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ OAUTH_ACCESS_TOKEN_TTL_SECONDS: "60" });
  }, SETUP_TIMEOUT);
  afterAll(() => app.close());

  test(
    "RFC 6749 section 5.1: expires_in states the configured lifetime (60)",
    async () => {
      const { browser } = await signedInMember(app);
      const { client_id } = await registerClient(app);
      const t = await obtainTokens(app, browser, client_id);
      expect(t.expires_in).toBe(60);
    },
    SETUP_TIMEOUT,
  );

  test(
    "docs/interface.md 2.4: at 59 s the access token still verifies, at 60 s it does not",
    async () => {
      const { org, browser } = await signedInMember(app);
      const { client_id } = await registerClient(app);
      const t = await obtainTokens(app, browser, client_id, { extra: { scope: "docs:read inbox:write" } });
      app.clock.advance(59_000);
      const context = await verifyAccessToken(app.deps, t.access_token);
      expect(context).not.toBeNull();
      expect(context!.orgId).toBe(org.org_id);
      expect(context!.clientId).toBe(client_id);
      expect(context!.scopes).toEqual(["docs:read", "inbox:write"]);
      app.clock.advance(1000);
      expect(await verifyAccessToken(app.deps, t.access_token)).toBeNull();
      // The refresh token outlives it and gets a fresh one (RFC 6749 section 1.5).
      const res = await refresh(app, client_id, t.refresh_token);
      expect(res.status).toBe(200);
      expect(await verifyAccessToken(app.deps, ((await res.json()) as { access_token: string }).access_token)).not.toBeNull();
    },
    SETUP_TIMEOUT,
  );
});

describe("default lifetime", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  }, SETUP_TIMEOUT);
  afterAll(() => app.close());

  test(
    "docs/interface.md 2.4 / docs/interface.md 8.1: access tokens live one hour (verifies at 3599 s, not at 3600 s)",
    async () => {
      const { browser } = await signedInMember(app);
      const { client_id } = await registerClient(app);
      const t = await obtainTokens(app, browser, client_id);
      expect(t.expires_in).toBe(3600);
      app.clock.advance(3599_000);
      expect(await verifyAccessToken(app.deps, t.access_token)).not.toBeNull();
      app.clock.advance(1000);
      expect(await verifyAccessToken(app.deps, t.access_token)).toBeNull();
    },
    SETUP_TIMEOUT,
  );

  test(
    "docs/interface.md 2.4: removing the member's membership row makes the access token (and the refresh token) stop working",
    async () => {
      const { org, browser } = await signedInMember(app);
      const { client_id } = await registerClient(app);
      const t = await obtainTokens(app, browser, client_id);
      const context = await verifyAccessToken(app.deps, t.access_token);
      expect(context).not.toBeNull();
      await app.deps.db.delete(memberships).where(and(eq(memberships.memberId, context!.memberId), eq(memberships.orgId, org.org_id)));
      expect(await verifyAccessToken(app.deps, t.access_token)).toBeNull();
      await expectOAuthError(await refresh(app, client_id, t.refresh_token), 400, "invalid_grant", /no longer belongs/);
    },
    SETUP_TIMEOUT,
  );

  test(
    "docs/interface.md 2.4: only the exact access token verifies (not a changed character, an extended token or a refresh token)",
    async () => {
      const { browser } = await signedInMember(app);
      const { client_id } = await registerClient(app);
      const t = await obtainTokens(app, browser, client_id);
      const last = t.access_token.at(-1) === "A" ? "B" : "A";
      expect(await verifyAccessToken(app.deps, t.access_token.slice(0, -1) + last)).toBeNull();
      expect(await verifyAccessToken(app.deps, `${t.access_token}x`)).toBeNull();
      expect(await verifyAccessToken(app.deps, t.refresh_token)).toBeNull();
      expect(await verifyAccessToken(app.deps, t.refresh_token.replace("svc_rt_", "svc_at_"))).toBeNull();
      expect(await verifyAccessToken(app.deps, t.access_token)).not.toBeNull();
    },
    SETUP_TIMEOUT,
  );
});
