// The help centre in two languages: one URL per language, the root sending each reader to theirs,
// an article and its translation (linked the knowledge base's way: `PATCH /api/docs/{id}` with
// `translation_of`, so they share a `translation_group`) pointing at each other with hreflang
// alternates and a switcher, the sitemap listing both with their alternates and x-default, a draft
// or internal version never among them, and an address from before languages answering 301.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { docs } from "../../src/db/schema/index.ts";
import { CATALOGUES, t } from "../../src/i18n/catalogue.ts";
import { createDoc } from "../../src/knowledge/docs.ts";
import { articleRef } from "../../src/helpcentre/urls.ts";
import { setOverrides } from "../../src/texts/store.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { seedHelpCentre } from "./seed.ts";

let app: TestApp;
let seed: Awaited<ReturnType<typeof seedHelpCentre>>;
let base: string;
let english: { id: string; title: string };
let german: { id: string; title: string };
let auth: { authorization: string };

/** Links `id` to `of`'s versions as a member does (src/knowledge/translations.ts), or unlinks it (`of` null). */
async function linkAs(id: string, of: string | null) {
  const res = await app.request(`/api/docs/${id}`, { method: "PATCH", headers: auth, json: { translation_of: of } });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  app = await createTestApp();
  seed = await seedHelpCentre(app);
  base = `/help/${seed.slug}`;
  auth = { authorization: `Bearer ${await signIn(app, seed.org.admin_email, seed.org.password)}` };
  english = await createDoc(app.deps, seed.orgId, { title: "Changing your plan", body: "Open Billing, then Plan.", tags: ["billing"] });
  german = await createDoc(app.deps, seed.orgId, { title: "Tarif wechseln", body: "Öffnen Sie Abrechnung, dann Tarif.", tags: ["billing"] });
  // The document's language as its writer or import sets it (src/db/schema/workspace.ts docs.language).
  await app.deps.db.update(docs).set({ language: "de" }).where(eq(docs.id, german.id));
  await linkAs(german.id, english.id);
});
afterAll(() => app.close());

describe("languages", () => {
  test("the root sends a reader to their language among those the articles are in, else the org's default", async () => {
    const de = await app.request(`${base}/`, { headers: { "accept-language": "de-CH, en;q=0.5" } });
    expect(de.status).toBe(302);
    expect(de.headers.get("location")).toBe(`${base}/de/`);
    expect(de.headers.get("vary")).toContain("Accept-Language");
    expect((await app.request(`${base}/`, { headers: { "accept-language": "ja" } })).headers.get("location")).toBe(`${base}/en/`);
    expect((await app.request(`${base}/`)).headers.get("location")).toBe(`${base}/en/`);
  });

  test("each language's home lists its own articles, with the switcher and hreflang alternates", async () => {
    const de = await (await app.request(`${base}/de/`)).text();
    expect(de).toContain('<html lang="de" dir="ltr">');
    expect(de).toContain(`<p class="muted">${t("de", "help.articles", { count: 1 })}</p>`);
    expect(de).toContain(`<h2>${CATALOGUES.de!["help.collections"]}</h2>`);
    expect(de).toContain(`<link rel="alternate" hreflang="en" href="http://localhost:3000${base}/en/">`);
    expect(de).toContain(`<link rel="alternate" hreflang="x-default" href="http://localhost:3000${base}/en/">`);
    expect(de).toContain('<nav class="languages"');
    expect(de).toContain(">English</a>");
    expect((await app.request(`${base}/fr/`)).status).toBe(404);
  });

  test("an article and its translation point at each other; the wrong language or no language is a 301", async () => {
    const en = await (await app.request(`${base}/en/articles/${articleRef(english)}`)).text();
    expect(en).toContain(`<link rel="alternate" hreflang="de" href="http://localhost:3000${base}/de/articles/${articleRef(german)}">`);
    expect(en).toContain(`hreflang="de" lang="de">Deutsch</a>`);
    const de = await (await app.request(`${base}/de/articles/${articleRef(german)}`)).text();
    expect(de).toContain(`<link rel="alternate" hreflang="en" href="http://localhost:3000${base}/en/articles/${articleRef(english)}">`);
    expect(de).toContain('"inLanguage":"de"');
    const wrong = await app.request(`${base}/en/articles/${articleRef(german)}`);
    expect(wrong.status).toBe(301);
    expect(wrong.headers.get("location")).toBe(`${base}/de/articles/${articleRef(german)}`);
    const old = await app.request(`${base}/articles/${articleRef(german)}`);
    expect(old.status).toBe(301);
    expect(old.headers.get("location")).toBe(`${base}/de/articles/${articleRef(german)}`);
    // Search is per language.
    expect(await (await app.request(`${base}/de/search?q=tarif`)).text()).toContain("Tarif wechseln");
    expect(await (await app.request(`${base}/en/search?q=tarif`)).text()).not.toContain("Tarif wechseln");
  });

  test("a draft or internal version of the article is never an alternate; unlinked, an article has none", async () => {
    const french = await createDoc(app.deps, seed.orgId, { title: "Changer d'offre", body: "Ouvrez Facturation.", tags: ["billing"], status: "draft" });
    const dutch = await createDoc(app.deps, seed.orgId, { title: "Abonnement wijzigen", body: "Open Facturering.", tags: ["billing", "internal"] });
    await app.deps.db.update(docs).set({ language: "fr" }).where(eq(docs.id, french.id));
    await app.deps.db.update(docs).set({ language: "nl" }).where(eq(docs.id, dutch.id));
    await linkAs(french.id, english.id);
    await linkAs(dutch.id, english.id);
    const en = await (await app.request(`${base}/en/articles/${articleRef(english)}`)).text();
    expect(en).toContain('hreflang="de"');
    for (const page of [en, await (await app.request(`${base}/sitemap.xml`)).text()])
      for (const hidden of [french, dutch]) {
        expect(page).not.toContain(articleRef(hidden));
        expect(page).not.toMatch(new RegExp(`hreflang="(fr|nl)"`));
      }
    // Published, the French version appears; unlinked, the English article stands alone.
    await app.deps.db.update(docs).set({ status: "published" }).where(eq(docs.id, french.id));
    expect(await (await app.request(`${base}/en/articles/${articleRef(english)}`)).text()).toContain(
      `<link rel="alternate" hreflang="fr" href="http://localhost:3000${base}/fr/articles/${articleRef(french)}">`,
    );
    await linkAs(english.id, null);
    const alone = await (await app.request(`${base}/en/articles/${articleRef(english)}`)).text();
    expect(alone).not.toContain('rel="alternate" hreflang');
    expect(alone).not.toContain('<nav class="languages"');
    // The others stay linked to one another.
    expect(await (await app.request(`${base}/de/articles/${articleRef(german)}`)).text()).toContain(`hreflang="fr" lang="fr"`);
    // As it was for the tests that follow.
    await app.deps.db.update(docs).set({ status: "draft" }).where(eq(docs.id, french.id));
    await linkAs(english.id, german.id);
  });

  test("sitemap.xml: both articles with hreflang alternates and x-default; drafts and internal articles absent", async () => {
    const xml = await (await app.request(`${base}/sitemap.xml`)).text();
    const entry = (doc: { id: string; title: string }, lang: string) => {
      const loc = `<loc>http://localhost:3000${base}/${lang}/articles/${articleRef(doc)}</loc>`;
      const start = xml.indexOf(loc);
      expect(start).toBeGreaterThan(0);
      return xml.slice(start, xml.indexOf("</url>", start));
    };
    for (const [doc, lang] of [
      [english, "en"],
      [german, "de"],
    ] as const) {
      const e = entry(doc, lang);
      expect(e).toContain(`<xhtml:link rel="alternate" hreflang="en" href="http://localhost:3000${base}/en/articles/${articleRef(english)}"/>`);
      expect(e).toContain(`<xhtml:link rel="alternate" hreflang="de" href="http://localhost:3000${base}/de/articles/${articleRef(german)}"/>`);
      expect(e).toContain(`<xhtml:link rel="alternate" hreflang="x-default" href="http://localhost:3000${base}/en/articles/${articleRef(english)}"/>`);
    }
    const locs = [...xml.matchAll(/<loc>[^<]*\/articles\/([0-9a-f]{12})/g)].map((m) => m[1]);
    expect(locs.sort()).toEqual([seed.refunds, seed.shipping, english, german].map((d) => d.id.replace(/-/g, "").slice(0, 12)).sort());
    for (const doc of [seed.draft, seed.internal, seed.unlisted]) expect(xml).not.toContain(doc.id.replace(/-/g, "").slice(0, 12));
  });

  test("a Spanish article's chrome is the Spanish catalogue's, its date said in Spanish, the org's override of a sentence first", async () => {
    const spanish = await createDoc(app.deps, seed.orgId, { title: "Cambiar de tarifa", body: "Abre Facturación y luego Tarifa.", tags: ["billing"] });
    await app.deps.db.update(docs).set({ language: "es" }).where(eq(docs.id, spanish.id));
    const url = `${base}/es/articles/${articleRef(spanish)}`;
    const es = CATALOGUES.es!;
    const page = await (await app.request(url)).text();
    expect(page).toContain('<html lang="es" dir="ltr">');
    for (const key of [
      "help.skip",
      "help.search_label",
      "help.search_placeholder",
      "help.search_button",
      "help.breadcrumbs",
      "help.home",
      "help.last_updated",
      "help.helpful_question",
      "help.yes",
      "help.no",
    ] as const)
      expect(page).toContain(es[key]);
    expect(page).toContain(`<title>Cambiar de tarifa · ${t("es", "help.centre_name", { org: "Acme Outdoor" })}</title>`);
    const [row] = await app.deps.db.select({ updatedAt: docs.updatedAt }).from(docs).where(eq(docs.id, spanish.id));
    expect(page).toContain(`>${new Intl.DateTimeFormat("es", { dateStyle: "long", timeZone: "UTC" }).format(row!.updatedAt)}</time>`);
    for (const english of [CATALOGUES.en!["help.helpful_question"], CATALOGUES.en!["help.last_updated"], CATALOGUES.en!["help.skip"]])
      expect(page).not.toContain(english);
    // The org's own wording of a sentence in Spanish (src/texts/) is said instead of the catalogue's; English pages keep theirs.
    await setOverrides(app.deps, seed.orgId, { kind: "system", name: "test" }, "es", { "help.helpful_question": "¿Te sirvió?" });
    const overridden = await (await app.request(url)).text();
    expect(overridden).toContain("¿Te sirvió?");
    expect(overridden).not.toContain(es["help.helpful_question"]);
    expect(await (await app.request(`${base}/en/articles/${articleRef(english)}`)).text()).toContain(CATALOGUES.en!["help.helpful_question"]);
    // A Spanish search page and a Spanish 404 speak Spanish too.
    expect(await (await app.request(`${base}/es/search?q=zzzz`)).text()).toContain(es["help.no_results"]);
    const missing = await app.request(`${base}/es/articles/000000000000-nada`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain(es["help.not_found_title"]);
  });
});
