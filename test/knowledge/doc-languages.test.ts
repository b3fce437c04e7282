// Knowledge by language through /api/docs and the dashboard: `?language=` lists one language's
// documents (or `unknown` for those not known), validated at its bounds; a document links to its
// version in another language (`translation_of`), and reading either lists the other under
// `translations`; the knowledge list shows a Language column and filters by it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { docs } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let other: Awaited<ReturnType<typeof seedOrg>>;
let auth: { authorization: string };
let otherAuth: { authorization: string };
const ids: Record<string, string> = {};

const create = async (title: string, language: string | null, headers = auth) => {
  const res = await app.request("/api/docs", { method: "POST", headers, json: { title, body: `${title}: the text of it.` } });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  // The language as an import or the writer sets it (a column of the doc).
  await app.deps.db.update(docs).set({ language }).where(eq(docs.id, id));
  return id;
};
const list = async (query: string) => app.request(`/api/docs${query}`, { headers: auth });

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  other = await seedOrg(app, { name: "Other" });
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  otherAuth = { authorization: `Bearer ${await signIn(app, other.admin_email, other.password)}` };
  ids.en = await create("Reset your password", "en");
  ids.es = await create("Restablecer la contraseña", "es");
  ids.de = await create("Passwort zurücksetzen", "de");
  ids.none = await create("Shipping", null);
  ids.foreign = await create("Elsewhere", "es", otherAuth);
}, 60_000);
afterAll(() => app.close());

describe("the language filter", () => {
  test("lists one language's documents, a longer tag by its primary language, or the unknown ones; each shows its language", async () => {
    const titles = async (q: string) => ((await (await list(q)).json()) as { docs: { title: string; language?: string }[] }).docs;
    expect((await titles("?language=es")).map((d) => [d.title, d.language])).toEqual([["Restablecer la contraseña", "es"]]);
    expect((await titles("?language=es-MX")).map((d) => d.title)).toEqual(["Restablecer la contraseña"]);
    expect((await titles("?language=DE")).map((d) => d.title)).toEqual(["Passwort zurücksetzen"]);
    const unknown = await titles("?language=unknown");
    expect(unknown.map((d) => d.title)).toEqual(["Shipping"]);
    expect("language" in unknown[0]!).toBe(false);
    expect((await titles("?language=fr")).length).toBe(0);
    expect((await titles("")).length).toBe(4);
  });

  test("a bad language is a 400 in the error shape: at 35 characters the tag is read, at 36 refused", async () => {
    for (const bad of ["e", "español", "es%20", "1x", "x-default"]) {
      const res = await list(`?language=${bad}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toBeDefined();
    }
    const at = `en-${"a".repeat(8)}-${"b".repeat(8)}-${"c".repeat(8)}-abcde`;
    expect(at.length).toBe(35);
    expect((await list(`?language=${at}`)).status).toBe(200);
    expect((await list(`?language=${at}e`)).status).toBe(400);
  });
});

describe("translations", () => {
  test("linking gives both documents the other under translations; a third joins the group; unlinking leaves the others", async () => {
    const patch = (id: string, body: unknown, headers = auth) => app.request(`/api/docs/${id}`, { method: "PATCH", headers, json: body });
    let res = await patch(ids.es!, { translation_of: ids.en });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).translations).toEqual([{ id: ids.en, language: "en", title: "Reset your password" }]);
    const read = async (id: string) => ((await (await app.request(`/api/docs/${id}`, { headers: auth })).json()) as any).translations;
    expect(await read(ids.en!)).toEqual([{ id: ids.es, language: "es", title: "Restablecer la contraseña" }]);
    // A link and an edit in one request.
    res = await patch(ids.de!, { translation_of: ids.es, title: "Passwort vergessen" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).title).toBe("Passwort vergessen");
    expect((await read(ids.en!)).map((t: any) => t.language)).toEqual(["de", "es"]);
    res = await patch(ids.es!, { translation_of: null });
    expect(((await res.json()) as any).translations).toEqual([]);
    expect((await read(ids.en!)).map((t: any) => t.language)).toEqual(["de"]);
    expect(await read(ids.none!)).toEqual([]);
  });

  test("linking two documents that each have versions joins the two groups", async () => {
    const patch = (id: string, body: unknown) => app.request(`/api/docs/${id}`, { method: "PATCH", headers: auth, json: body });
    const read = async (id: string) => ((await (await app.request(`/api/docs/${id}`, { headers: auth })).json()) as any).translations;
    // en and de are linked; es and the unknown one become a second pair.
    expect((await patch(ids.none!, { translation_of: ids.es })).status).toBe(200);
    expect((await read(ids.es!)).map((t: any) => t.id)).toEqual([ids.none]);
    expect((await patch(ids.es!, { translation_of: ids.de })).status).toBe(200);
    expect((await read(ids.en!)).map((t: any) => t.language)).toEqual(["de", "es", null]);
    // Unlinking one leaves the three others together.
    expect((await patch(ids.none!, { translation_of: null })).status).toBe(200);
    expect((await read(ids.de!)).map((t: any) => t.language)).toEqual(["en", "es"]);
  });

  test("refusals: itself, another org's document, no document, not a UUID; nothing else in the request is changed", async () => {
    const patch = (id: string, body: unknown, headers = auth) => app.request(`/api/docs/${id}`, { method: "PATCH", headers, json: body });
    let res = await patch(ids.none!, { translation_of: ids.none });
    expect(res.status).toBe(400);
    res = await patch(ids.none!, { translation_of: ids.foreign, title: "Changed" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details[0].path).toBe("/translation_of");
    const none = (await (await app.request(`/api/docs/${ids.none}`, { headers: auth })).json()) as any;
    expect(none.title).toBe("Shipping");
    expect(none.translations).toEqual([]);
    res = await patch(ids.none!, { translation_of: "00000000-0000-4000-8000-000000000000" });
    expect(res.status).toBe(400);
    res = await patch(ids.none!, { translation_of: "not-a-uuid" });
    expect(res.status).toBe(400);
    // Another org's member cannot link to this org's documents either.
    res = await patch(ids.foreign!, { translation_of: ids.en }, otherAuth);
    expect(res.status).toBe(400);
    res = await patch(ids.en!, { translation_of: ids.foreign }, otherAuth);
    expect(res.status).toBe(404);
  });
});

describe("the dashboard", () => {
  test("the list has a Language column and a filter offering the documents' languages; the doc page lists its other languages and links them", async () => {
    const page = async (path: string) => {
      const res = await app.request(path, { headers: auth });
      expect(res.status).toBe(200);
      return res.text();
    };
    const all = await page("/dashboard/knowledge");
    expect(all).toContain('<th scope="col">Language</th>');
    expect(all).toContain("Spanish (es)");
    expect(all).toMatch(/<option value="unknown"[^>]*>Unknown<\/option>/);
    expect(all).toMatch(/<option value="de"[^>]*>German \(de\)<\/option>/);
    const spanish = await page("/dashboard/knowledge?language=es");
    expect(spanish).toContain("Restablecer la contraseña");
    expect(spanish).not.toContain("Passwort");
    expect(spanish).toMatch(/<option value="es" selected>/);
    const en = await page(`/dashboard/knowledge/${ids.en}`);
    expect(en).toContain("Other languages");
    expect(en).toContain(`href="/dashboard/knowledge/${ids.de}"`);
    const form = new URLSearchParams({ translation_of: ids.none! });
    const res = await app.request(`/dashboard/knowledge/${ids.en}/translation`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    expect(res.status).toBe(303);
    const shipping = await page(`/dashboard/knowledge/${ids.none}`);
    expect(shipping).toContain(`href="/dashboard/knowledge/${ids.en}"`);
  });
});
