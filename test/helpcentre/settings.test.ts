// The help centre's settings from the dashboard (org:manage), the preview while it is off, the link
// from an article to its public page, and the custom domain: served only once its TXT record is
// verified (a fake DNS: the app's injected resolver), while an unknown Host is answered as before.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createDoc } from "../../src/knowledge/docs.ts";
import { DOMAIN_RECORD, helpCentreOfOrg } from "../../src/helpcentre/settings.ts";
import { articleRef } from "../../src/helpcentre/urls.ts";
import { adminOf, get, type Member, memberWith, post } from "../dashboard/helpers.ts";
import { createTestApp, type TestApp } from "../support/app.ts";

const PATH = "/dashboard/settings/help-centre";
let app: TestApp;
let admin: Member;

beforeAll(async () => {
  // A public BASE_URL: the reverse proxy in front decides which hosts reach us (src/http/handler.ts).
  app = await createTestApp({ BASE_URL: "https://svc.example.com" });
  admin = await adminOf(app, "Trailhead");
});
afterAll(() => app.close());

const form = (over: Record<string, string> = {}) => ({
  enabled: "on",
  slug: "trailhead",
  custom_domain: "",
  collections: "guides\nbilling",
  footer: "Trailhead Ltd",
  ...over,
});
const onHost = (host: string, path = "/") => app.handle(new Request(`https://${host}${path}`, { redirect: "manual" }));

describe("settings", () => {
  test("the page needs org:manage; saving publishes the help centre at /help/<slug>", async () => {
    const viewer = await memberWith(app, admin.orgId, ["knowledge:view"]);
    expect((await get(app, viewer, PATH)).status).toBe(403);
    expect((await get(app, admin, PATH)).status).toBe(200);
    const saved = await post(app, admin, PATH, form());
    expect(saved.status).toBe(303);
    const row = await helpCentreOfOrg(app.deps, admin.orgId);
    expect(row).toMatchObject({ enabled: true, slug: "trailhead", collections: ["guides", "billing"], footer: "Trailhead Ltd", customDomain: null });
    expect((await app.request("/help/trailhead/en/")).status).toBe(200);
  });

  test("bad values are shown by their field: a slug, a domain, the tag internal, a footer one over its limit", async () => {
    for (const [over, text] of [
      [{ slug: "Not A Slug!" }, "lower-case letters"],
      [{ custom_domain: "https://x.example/path" }, "host name"],
      [{ collections: "guides\ninternal" }, "cannot be public"],
      [{ footer: "f".repeat(501) }, "At most 500"],
    ] as const) {
      const res = await post(app, admin, PATH, form(over));
      expect(res.status).toBe(400);
      expect(await res.text()).toContain(text);
    }
    expect((await post(app, admin, PATH, form({ footer: "f".repeat(500) }))).status).toBe(303);
    const other = await adminOf(app, "Other");
    const taken = await post(app, other, PATH, form());
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain("Another organisation");
  });

  test("an article's page links to its public page only when it is public", async () => {
    const shown = await createDoc(app.deps, admin.orgId, { title: "Trail maps", body: "Maps of every trail.", tags: ["guides"] });
    const internal = await createDoc(app.deps, admin.orgId, { title: "Ranger notes", body: "Notes.", tags: ["guides", "internal"] });
    expect(await (await get(app, admin, `/dashboard/knowledge/${shown.id}`)).text()).toContain(
      `https://svc.example.com/help/trailhead/en/articles/${articleRef(shown)}`,
    );
    expect(await (await get(app, admin, `/dashboard/knowledge/${internal.id}`)).text()).not.toContain("View on the help centre");
  });

  test("the preview shows the help centre to members while it is off; the public path is 404 then", async () => {
    expect((await post(app, admin, PATH, form({ enabled: "" }))).status).toBe(303);
    expect((await app.request("/help/trailhead/en/")).status).toBe(404);
    const preview = await get(app, admin, `${PATH}/preview/en/`);
    expect(preview.status).toBe(200);
    expect(await preview.text()).toContain(`href="${PATH}/preview/en/collections/guides"`);
    expect((await app.request(`${PATH}/preview/`)).status).toBe(303); // signed out: to sign-in
    expect((await post(app, admin, PATH, form())).status).toBe(303);
  });
});

describe("custom domain", () => {
  test("served only after its TXT record is verified; an unknown Host is answered as before", async () => {
    const before = await onHost("help.trailhead.example");
    const unknown = await onHost("unknown.example");
    expect(before.status).toBe(unknown.status);
    expect(await before.text()).not.toContain("Trailhead help centre");

    expect((await post(app, admin, PATH, form({ custom_domain: "Help.Trailhead.example" }))).status).toBe(303);
    const row = (await helpCentreOfOrg(app.deps, admin.orgId))!;
    expect(row.customDomain).toBe("help.trailhead.example");
    const page = await (await get(app, admin, PATH)).text();
    expect(page).toContain(`${DOMAIN_RECORD}.help.trailhead.example`);
    expect(page).toContain(`svc-agents-verify=${row.domainToken}`);
    // Saved but not verified: still not served.
    expect((await onHost("help.trailhead.example")).status).toBe(unknown.status);

    // A record with another value does not verify.
    app.mailDns.set(`TXT ${DOMAIN_RECORD}.help.trailhead.example`, [["svc-agents-verify=wrong"]]);
    const wrong = await post(app, admin, `${PATH}/verify`, { go: "1" });
    expect(wrong.status).toBe(303);
    expect((await helpCentreOfOrg(app.deps, admin.orgId))!.domainVerifiedAt).toBeNull();

    // The record split in two strings (RFC 1035 section 3.3.14) verifies.
    const value = `svc-agents-verify=${row.domainToken}`;
    app.mailDns.set(`TXT ${DOMAIN_RECORD}.help.trailhead.example`, [["v=spf1 -all"], [value.slice(0, 10), value.slice(10)]]);
    expect((await post(app, admin, `${PATH}/verify`, { go: "1" })).status).toBe(303);
    expect((await helpCentreOfOrg(app.deps, admin.orgId))!.domainVerifiedAt).not.toBeNull();

    const root = await onHost("help.trailhead.example");
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/en/");
    const home = await onHost("help.trailhead.example", "/en/");
    expect(home.status).toBe(200);
    const html = await home.text();
    expect(html).toContain("Trailhead help centre");
    expect(html).toContain('<link rel="canonical" href="https://help.trailhead.example/en/">');
    expect(html).toContain('href="/help.css"');
    expect((await onHost("help.trailhead.example", "/help.css")).headers.get("content-type")).toStartWith("text/css");
    expect(await (await onHost("help.trailhead.example", "/robots.txt")).text()).toContain("Sitemap: https://help.trailhead.example/sitemap.xml");
    // Our own host still serves the app, and the path form canonicalises to the domain.
    expect(await (await app.request("/help/trailhead/en/")).text()).toContain('<link rel="canonical" href="https://help.trailhead.example/en/">');
    expect((await onHost("unknown.example")).status).toBe(unknown.status);

    // A new domain starts unverified again.
    expect((await post(app, admin, PATH, form({ custom_domain: "docs.trailhead.example" }))).status).toBe(303);
    expect((await onHost("help.trailhead.example")).status).toBe(unknown.status);
    expect((await onHost("docs.trailhead.example")).status).toBe(unknown.status);
  });

  test("with a loopback BASE_URL a foreign Host stays 421, verified or not (the DNS-rebinding rule)", async () => {
    const local = await createTestApp();
    try {
      const res = await local.handle(new Request("http://help.trailhead.example/", { headers: { host: "help.trailhead.example" } }));
      expect(res.status).toBe(421);
    } finally {
      await local.close();
    }
  });
});
