// The org's document cap for knowledge sources (KNOWLEDGE_MAX_DOCS_PER_ORG, README "Knowledge
// sources"): a sync adds documents up to the cap, counting the ones written by hand, and reports
// each page past it with the reason; room made later is used by the next sync.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createDoc, deleteDoc, listDocs } from "../../src/knowledge/docs.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { syncAndWait } from "./helpers.ts";
import { startTestSite, type TestSite } from "./site.ts";

let app: TestApp;
let site: TestSite;

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development", WEBSITE_CRAWL_DELAY_MS: "0", KNOWLEDGE_MAX_DOCS_PER_ORG: "5" });
  site = startTestSite(6);
});
afterAll(async () => {
  site.stop();
  await app.close();
});

describe("documents per org", () => {
  test("the fifth document is added, the sixth refused with the reason; room made later is used", async () => {
    const org = await seedOrg(app);
    const token = await signIn(app, org.admin_email, org.password);
    const own = await createDoc(app.deps, org.org_id, { title: "Written by hand", body: "Ours." });
    const res = await app.request("/api/knowledge/sources", {
      headers: { authorization: `Bearer ${token}` },
      json: { kind: "website", name: "Site", start_url: `${site.origin}/sitemap.xml` },
    });
    const id = ((await res.json()) as any).id;
    const first = await syncAndWait(app, token, id, false);
    // Six pages and /missing: four fit beside the one written by hand.
    expect(first.counts).toMatchObject({ imported: 4, failed: 3 });
    expect(first.problems.filter((p: { reason: string }) => p.reason === "the organisation holds 5 documents, the most a source may add to").length).toBe(2);
    expect((await listDocs(app.deps, org.org_id, { limit: 100, offset: 0 })).length).toBe(5);
    await deleteDoc(app.deps, org.org_id, own.id);
    const second = await syncAndWait(app, token, id);
    expect(second.counts).toMatchObject({ imported: 1, unchanged: 4, failed: 2 });
    expect((await listDocs(app.deps, org.org_id, { limit: 100, offset: 0 })).length).toBe(5);
  });
});
