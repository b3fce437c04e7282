// The org's byte cap (KNOWLEDGE_MAX_BYTES_PER_ORG, README "Knowledge sources"): the UTF-8 bytes of
// the org's document bodies, whoever wrote them. An upload that lands exactly on the cap is
// imported, one byte over is refused with the reason; a sync adds pages while they fit, and a page
// that would grow past it is reported failed while its previous doc stays as it was.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createDoc, getDoc, listDocs } from "../../src/knowledge/docs.ts";
import { orgDocBytes } from "../../src/knowledge/source-docs.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { syncAndWait } from "./helpers.ts";
import { startTestSite, type TestSite } from "./site.ts";

const CAP = 1000;
const REASON = `the organisation's documents would pass ${CAP} bytes, the most sources and uploads may bring in`;
let app: TestApp;
let site: TestSite;

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development", WEBSITE_CRAWL_DELAY_MS: "0", KNOWLEDGE_MAX_BYTES_PER_ORG: String(CAP) });
  site = startTestSite(3);
});
afterAll(async () => {
  site.stop();
  await app.close();
});

const upload = (token: string, name: string, text: string) =>
  app.request("/api/knowledge/files", {
    headers: { authorization: `Bearer ${token}` },
    json: { files: [{ name, content_base64: Buffer.from(text).toString("base64") }] },
  });

describe("bytes per org", () => {
  // Multi-byte characters: the cap counts bytes, not characters.
  const text = "# Délai de livraison\n\nNous expédions chaque jour ouvré — avant midi.";
  const bytes = Buffer.byteLength(text);

  test("an upload that lands exactly on the cap is imported", async () => {
    const org = await seedOrg(app);
    const token = await signIn(app, org.admin_email, org.password);
    await createDoc(app.deps, org.org_id, { title: "Written by hand", body: "x".repeat(CAP - bytes) });
    const res = await upload(token, "livraison.md", text);
    expect(res.status).toBeLessThan(300);
    const body = (await res.json()) as any;
    expect(body.docs.length).toBe(1);
    expect(body.failed).toEqual([]);
    expect(await orgDocBytes(app.deps, org.org_id)).toBe(CAP);
  });

  test("one byte over is refused with the reason, and nothing is added", async () => {
    const org = await seedOrg(app);
    const token = await signIn(app, org.admin_email, org.password);
    await createDoc(app.deps, org.org_id, { title: "Written by hand", body: "x".repeat(CAP - bytes + 1) });
    const res = await upload(token, "livraison.md", text);
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(JSON.stringify(body)).toContain(`livraison.md: ${REASON}`);
    expect((await listDocs(app.deps, org.org_id, { limit: 100, offset: 0 })).length).toBe(1);
  });

  test("a sync adds pages while they fit; a page grown past the cap keeps its previous doc", async () => {
    const org = await seedOrg(app);
    const token = await signIn(app, org.admin_email, org.password);
    await createDoc(app.deps, org.org_id, { title: "Written by hand", body: "x".repeat(CAP - 700) });
    const res = await app.request("/api/knowledge/sources", {
      headers: { authorization: `Bearer ${token}` },
      json: { kind: "website", name: "Site", start_url: `${site.origin}/sitemap.xml` },
    });
    const id = ((await res.json()) as any).id;
    const first = await syncAndWait(app, token, id, false);
    // Each page is about 300 bytes: two fit in the 700 left, the third is refused (and /missing is a 404).
    expect(first.counts).toMatchObject({ imported: 2, failed: 2 });
    expect(first.problems.filter((p: { reason: string }) => p.reason === REASON).length).toBe(1);
    const held = await orgDocBytes(app.deps, org.org_id);
    expect(held).toBeLessThanOrEqual(CAP);
    const docs = await listDocs(app.deps, org.org_id, { limit: 100, offset: 0 });
    const kept = docs.find((d) => d.title === "Help topic number 1") ?? docs.find((d) => d.title === "Help topic number 2")!;
    const path = kept.title === "Help topic number 1" ? "/docs/page-1" : "/docs/page-2";
    const before = (await getDoc(app.deps, org.org_id, kept.id))!.body;
    site.pages.set(path, { title: kept.title, text: "Grown well past the cap. ".repeat(40) });
    const second = await syncAndWait(app, token, id);
    expect(
      second.problems
        .filter((p: { reason: string }) => p.reason === REASON)
        .map((p: { url: string }) => new URL(p.url).pathname)
        .sort(),
    ).toContain(path);
    expect((await getDoc(app.deps, org.org_id, kept.id))!.body).toBe(before);
    expect(await orgDocBytes(app.deps, org.org_id)).toBe(held);
  });
});
