// Dashboard knowledge sources through the app with a session cookie: a website and a help centre
// added through their forms, field errors shown by field with the values kept (the token never
// echoed), the delete confirmation acting only on its word, and roles (knowledge:view sees no
// forms and cannot post them).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listDocs } from "../../src/knowledge/docs.ts";
import { listSources } from "../../src/sources/service.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith, post, withFlash } from "./helpers.ts";

let app: TestApp;
let admin: Member;

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development" });
  admin = await adminOf(app);
});
afterAll(() => app.close());

describe("dashboard knowledge sources", () => {
  test("a help centre with a refused address: its form again with the error by the field, values kept, token not echoed", async () => {
    const res = await post(app, admin, "/dashboard/knowledge/sources/help-centre", {
      hc_kind: "intercom",
      hc_name: "Intercom",
      hc_base_url: "http://10.1.2.3/",
      hc_locale: "",
      hc_token: "secret-token-value",
    });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('id="f-hc_base_url-error"');
    expect(page).toContain('value="Intercom"');
    expect(page).not.toContain("secret-token-value");
    expect(await listSources(app.deps, admin.orgId)).toEqual([]);
  });

  test("an Intercom help centre without its token is refused at the token field", async () => {
    const res = await post(app, admin, "/dashboard/knowledge/sources/help-centre", {
      hc_kind: "intercom",
      hc_name: "Intercom",
      hc_base_url: "http://127.0.0.1:9/ic",
      hc_locale: "",
      hc_token: "",
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('id="f-hc_token-error"');
  });

  test("a Zendesk help centre is added and its page shown; delete asks first and acts only on its word", async () => {
    const res = await post(app, admin, "/dashboard/knowledge/sources/help-centre", {
      hc_kind: "zendesk",
      hc_name: "Zendesk",
      hc_base_url: "http://127.0.0.1:9/zd",
      hc_locale: "en-gb",
      hc_token: "",
    });
    expect(res.status).toBe(303);
    const [source] = await listSources(app.deps, admin.orgId);
    expect(source).toMatchObject({ kind: "zendesk", name: "Zendesk", settings: { base_url: "http://127.0.0.1:9/zd", locale: "en-gb" } });
    expect(res.headers.get("location")).toBe(`/dashboard/knowledge/sources/${source!.id}`);
    expect((await get(app, admin, `/dashboard/knowledge/sources/${source!.id}`)).status).toBe(200);
    const asked = await post(app, admin, `/dashboard/knowledge/sources/${source!.id}/delete`, { go: "1" });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain("every document it brought is deleted");
    expect((await listSources(app.deps, admin.orgId)).length).toBe(1);
    const done = await post(app, admin, `/dashboard/knowledge/sources/${source!.id}/delete`, { confirm: "yes" });
    expect(done.status).toBe(303);
    expect(await listSources(app.deps, admin.orgId)).toEqual([]);
  });

  test("a website with a missing address and a page cap past its limit: both errors by their fields", async () => {
    const res = await post(app, admin, "/dashboard/knowledge/sources", { name: "Site", start_url: "", max_pages: "5001", include: "", exclude: "" });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('id="f-start_url-error"');
    expect(page).toContain('id="f-max_pages-error"');
  });

  test("knowledge:view sees the list without forms and cannot add", async () => {
    const viewer = await memberWith(app, admin.orgId, ["knowledge:view"]);
    const page = await (await get(app, viewer, "/dashboard/knowledge/sources")).text();
    expect(page).toContain("Knowledge sources");
    expect(page).not.toContain("Add a website");
    expect((await post(app, viewer, "/dashboard/knowledge/sources", { name: "x", start_url: "http://127.0.0.1:9/" })).status).toBe(403);
    expect(page).not.toContain("Upload files");
    expect(
      (await post(app, viewer, "/dashboard/knowledge/sources/files", { file_name: "a.md", file_base64: Buffer.from("# A").toString("base64") })).status,
    ).toBe(403);
  });

  test("a markdown file uploaded through the form (as the page's script sends it) becomes a document", async () => {
    const form = await (await get(app, admin, "/dashboard/knowledge/sources")).text();
    expect(form).toContain('action="/dashboard/knowledge/sources/files"');
    const text = "# Opening hours\n\nWe answer <script>alert(1)</script> every weekday from 9 to 5.";
    const res = await post(app, admin, "/dashboard/knowledge/sources/files", { file_name: "hours.md", file_base64: Buffer.from(text).toString("base64") });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/knowledge/sources");
    const page = await (await get(app, withFlash(admin, res), "/dashboard/knowledge/sources")).text();
    expect(page).toContain("1 file imported as documents.");
    const docs = await listDocs(app.deps, admin.orgId, { limit: 100, offset: 0 });
    const doc = docs.find((d) => d.title === "Opening hours");
    expect(doc).toBeDefined();
    const shown = await (await get(app, admin, `/dashboard/knowledge/${doc!.id}`)).text();
    expect(shown).toContain("every weekday from 9 to 5");
    expect(shown).not.toContain("<script>alert(1)</script>");
  });

  test("without the page's script no contents arrive: the form says so by its field; an unreadable file gives its reason", async () => {
    const bare = await post(app, admin, "/dashboard/knowledge/sources/files", { upload: "files" });
    expect(bare.status).toBe(400);
    expect(await bare.text()).toContain('id="f-files-error"');
    const odd = await post(app, admin, "/dashboard/knowledge/sources/files", {
      file_name: "picture.png",
      file_base64: Buffer.from("not a picture").toString("base64"),
    });
    expect(odd.status).toBe(400);
    const page = await odd.text();
    expect(page).toContain('id="f-files-error"');
    expect(page).toContain("picture.png");
  });
});
