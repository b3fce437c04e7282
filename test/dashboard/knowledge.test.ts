// Dashboard knowledge base through the app with a session cookie: roles, create with a field
// error, edit with preview (raw HTML shown as text), publish/unpublish, search, pagination,
// import from a file and a refused URL import, and another org's document answering 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getDoc, listDocs } from "../../src/knowledge/docs.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith, post, withFlash } from "./helpers.ts";

let app: TestApp;
let admin: Member;
let other: Member;
beforeAll(async () => {
  app = await createTestApp();
  admin = await adminOf(app, "Docs Org");
  other = await adminOf(app, "Other Docs Org");
});
afterAll(() => app.close());

async function create(who: Member, form: Record<string, string>) {
  const res = await post(app, who, "/dashboard/knowledge", { intent: "save", status: "published", url: "", tags: "", ...form });
  expect(res.status).toBe(303);
  return res.headers.get("location")!.split("/").pop()!;
}

describe("knowledge pages", () => {
  test("roles: knowledge:view reads, cannot write; others get 403", async () => {
    const viewer = await memberWith(app, admin.orgId, ["knowledge:view"]);
    const list = await get(app, viewer, "/dashboard/knowledge");
    expect(list.status).toBe(200);
    expect(await list.text()).not.toContain("Import a web page");
    expect((await get(app, viewer, "/dashboard/knowledge/new")).status).toBe(403);
    expect((await post(app, viewer, "/dashboard/knowledge", { title: "x", body: "y" })).status).toBe(403);
    const outsider = await memberWith(app, admin.orgId, ["agents:view"]);
    expect((await get(app, outsider, "/dashboard/knowledge")).status).toBe(403);
  });

  test("create: a missing title is a field error, the text kept", async () => {
    const res = await post(app, admin, "/dashboard/knowledge", { intent: "save", title: "", body: "Refunds take **5 days**." });
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toContain('id="f-title-error"');
    expect(body).toContain("Refunds take **5 days**.");
  });

  test("a title of exactly 300 characters passes, 301 is a field error", async () => {
    await create(admin, { title: "t".repeat(300), body: "Boundary body." });
    const over = await post(app, admin, "/dashboard/knowledge", { intent: "save", title: "t".repeat(301), body: "Boundary body." });
    expect(over.status).toBe(400);
    expect(await over.text()).toContain('id="f-title-error"');
  });

  test("preview renders markdown without saving; raw HTML is shown as text", async () => {
    const res = await post(app, admin, "/dashboard/knowledge", {
      intent: "preview",
      title: "P",
      body: "# Hello\n\n<script>alert(1)</script> [x](javascript:alert(1))",
    });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain("<h1>Hello</h1>");
    expect(body).not.toContain("<script>alert");
    expect(body).not.toContain('href="javascript:');
    expect((await listDocs(app.deps, admin.orgId, { limit: 100, offset: 0 })).some((d) => d.title === "P")).toBe(false);
  });

  test("create, edit, unpublish and publish, with flashes", async () => {
    const id = await create(admin, { title: "Refund policy", body: "Refunds take five days.", tags: "billing, refunds" });
    const doc = (await getDoc(app.deps, admin.orgId, id))!;
    expect(doc.tags).toEqual(["billing", "refunds"]);
    const saved = await post(app, admin, `/dashboard/knowledge/${id}`, {
      intent: "save",
      title: "Refund policy",
      body: "Refunds take three days.",
      url: "https://example.com/refunds",
      tags: "billing",
      status: "published",
    });
    expect(saved.status).toBe(303);
    expect(await (await get(app, withFlash(admin, saved), `/dashboard/knowledge/${id}`)).text()).toContain("Document saved.");
    expect((await getDoc(app.deps, admin.orgId, id))!.body).toBe("Refunds take three days.");
    expect((await post(app, admin, `/dashboard/knowledge/${id}/status`, { status: "draft" })).status).toBe(303);
    expect((await getDoc(app.deps, admin.orgId, id))!.status).toBe("draft");
    expect((await post(app, admin, `/dashboard/knowledge/${id}/status`, { status: "published" })).status).toBe(303);
    expect((await getDoc(app.deps, admin.orgId, id))!.status).toBe("published");
    const deleted = await post(app, admin, `/dashboard/knowledge/${id}/delete`, { go: "1" });
    expect(deleted.headers.get("location")).toBe("/dashboard/knowledge");
    expect(await getDoc(app.deps, admin.orgId, id)).toBeNull();
    expect((await get(app, admin, `/dashboard/knowledge/${id}`)).status).toBe(404);
  });

  test("search finds published documents; the list paginates", async () => {
    await create(admin, { title: "Shipping times", body: "Parcels ship within two working days." });
    const found = await (await get(app, admin, "/dashboard/knowledge?q=parcels+ship")).text();
    expect(found).toContain("Shipping times");
    for (let i = 0; i < 21; i++) await create(other, { title: `Doc ${i}`, body: `Body ${i}` });
    const first = await (await get(app, other, "/dashboard/knowledge")).text();
    expect(first).toContain('rel="next"');
    const second = await (await get(app, other, "/dashboard/knowledge?page=2")).text();
    expect(second).toContain('rel="prev"');
    expect(second).not.toContain('rel="next"');
  });

  test("import a markdown file: title from its first heading", async () => {
    const res = await post(app, admin, "/dashboard/knowledge/import-file", {
      file_name: "C:\\fakepath\\returns.md",
      content: "# Returns\n\nSend it back within 30 days.",
    });
    expect(res.status).toBe(303);
    const doc = (await getDoc(app.deps, admin.orgId, res.headers.get("location")!.split("/").pop()!))!;
    expect(doc.title).toBe("Returns");
    const missing = await post(app, admin, "/dashboard/knowledge/import-file", { file_name: "", content: "" });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('id="f-file-error"');
  });

  test("import from a URL the guard refuses: the reason next to the address field", async () => {
    const res = await post(app, admin, "/dashboard/knowledge/import-url", { url: "http://127.0.0.1/internal", title: "" });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const body = await res.text();
    expect(body).toContain('id="f-url-error"');
    expect(body).toContain('value="http://127.0.0.1/internal"');
  });

  test("import from a URL: the page becomes a document titled by the page, citing its address", async () => {
    // Development mode: the outbound guard lets plain http reach a loopback page.
    const dev = await createTestApp({ NODE_ENV: "development" });
    const site = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        new Response("<html><head><title>Opening hours</title></head><body><p>We are open 9 to 5.</p></body></html>", {
          headers: { "content-type": "text/html" },
        }),
    });
    try {
      dev.hosts.set("help.shop.example", ["127.0.0.1"]);
      const who = await adminOf(dev);
      const url = `http://help.shop.example:${site.port}/hours`;
      const res = await post(dev, who, "/dashboard/knowledge/import-url", { url, title: "" });
      expect(res.status).toBe(303);
      const doc = (await getDoc(dev.deps, who.orgId, res.headers.get("location")!.split("/").pop()!))!;
      expect(doc.title).toBe("Opening hours");
      expect(doc.url).toBe(url);
      expect(doc.body).toContain("We are open 9 to 5.");
      expect(await (await get(dev, withFlash(who, res), `/dashboard/knowledge/${doc.id}`)).text()).toContain("Imported “Opening hours”");
    } finally {
      site.stop(true);
      await dev.close();
    }
  });

  test("tenant boundary: another org's document is 404 to read, edit, publish or delete", async () => {
    const [theirs] = await listDocs(app.deps, other.orgId, { limit: 1, offset: 0 });
    expect((await get(app, admin, `/dashboard/knowledge/${theirs!.id}`)).status).toBe(404);
    expect((await post(app, admin, `/dashboard/knowledge/${theirs!.id}`, { intent: "save", title: "Hijack", body: "x" })).status).toBe(404);
    expect((await post(app, admin, `/dashboard/knowledge/${theirs!.id}/status`, { status: "draft" })).status).toBe(404);
    expect((await post(app, admin, `/dashboard/knowledge/${theirs!.id}/delete`, { go: "1" })).status).toBe(404);
    expect((await getDoc(app.deps, other.orgId, theirs!.id))!.title).toBe(theirs!.title);
  });
});
