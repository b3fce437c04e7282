// A crawl follows hreflang alternates (README "Knowledge sources"): a loopback site whose pages name
// their versions in other languages with <link rel="alternate" hreflang>, reached from nowhere else.
// Each version becomes a doc with the language its hreflang names, the versions linked as
// translations of one another; alternates go through the same rules as links (same host, robots.txt,
// the page cap); a source's `languages` keeps only those languages.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { docs } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { syncAndWait } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let token: string;
let server: ReturnType<typeof Bun.serve>;
let origin: string;
const requests: string[] = [];

const VERSIONS: Record<string, { lang: string; title: string; text: string }> = {
  "/en/reset": { lang: "en", title: "Reset your password", text: "Choose Forgot password on the sign-in page and follow the link we email you." },
  "/es/reset": { lang: "es", title: "Restablecer la contraseña", text: "Elija Olvidé mi contraseña en la página de acceso y siga el enlace que le enviamos." },
  "/de/reset": {
    lang: "de",
    title: "Passwort zurücksetzen",
    text: "Wählen Sie auf der Anmeldeseite Passwort vergessen und folgen Sie dem Link in der E-Mail.",
  },
  "/fr/reset": { lang: "fr", title: "Réinitialiser le mot de passe", text: "Choisissez Mot de passe oublié sur la page de connexion et suivez le lien reçu." },
};

function page(path: string): string {
  const v = VERSIONS[path]!;
  // Every version names all of them (and x-default), as hreflang wants; fr is disallowed by robots.txt,
  // and one alternate points at another host.
  const alternates = Object.entries(VERSIONS)
    .map(([p, o]) => `<link rel="alternate" hreflang="${o.lang === "es" ? "es-ES" : o.lang}" href="${p}">`)
    .join("");
  return `<!doctype html><html lang="${v.lang}"><head><title>${v.title}</title>${alternates}
<link rel="alternate" hreflang="x-default" href="/en/reset"><link rel="alternate" hreflang="it" href="http://elsewhere.invalid/it/reset">
<link rel="stylesheet" hreflang="pt" href="/pt/reset"></head>
<body><main><article><h1>${v.title}</h1><p>${v.text}</p><p>${v.text}</p></article></main></body></html>`;
}

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development", WEBSITE_CRAWL_DELAY_MS: "0" });
  org = await seedOrg(app);
  token = await signIn(app, org.admin_email, org.password);
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      requests.push(path);
      if (path === "/robots.txt") return new Response("User-agent: *\nDisallow: /fr/\n", { headers: { "content-type": "text/plain" } });
      if (!VERSIONS[path]) return new Response("not here", { status: 404 });
      return new Response(page(path), { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
}, 60_000);
afterAll(async () => {
  server.stop(true);
  await app.close();
});

const auth = () => ({ authorization: `Bearer ${token}` });
const create = async (body: Record<string, unknown>) => {
  const res = await app.request("/api/knowledge/sources", { headers: auth(), json: { kind: "website", ...body } });
  return res;
};
const sourceDocs = async (sourceId: string) => app.deps.db.select().from(docs).where(eq(docs.sourceId, sourceId));

describe("hreflang alternates", () => {
  test("from one page, every version it names on the site and allowed by robots.txt: each its language, all linked as translations", async () => {
    const res = await create({ name: "Site", start_url: `${origin}/en/reset` });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const done = await syncAndWait(app, token, id, false);
    expect(done.status).toBe("ready");
    const rows = await sourceDocs(id);
    expect(rows.map((d) => [d.language, d.title]).sort()).toEqual([
      ["de", "Passwort zurücksetzen"],
      ["en", "Reset your password"],
      ["es", "Restablecer la contraseña"],
    ]);
    expect(requests).not.toContain("/fr/reset"); // robots.txt
    expect(requests).not.toContain("/pt/reset"); // not rel=alternate
    expect(new Set(rows.map((d) => d.translationGroup)).size).toBe(1);
    expect(rows[0]!.translationGroup).not.toBeNull();
    const en = rows.find((d) => d.language === "en")!;
    const read = (await (await app.request(`/api/docs/${en.id}`, { headers: auth() })).json()) as any;
    expect(read.language).toBe("en");
    expect(read.translations.map((t: any) => t.language)).toEqual(["de", "es"]);
    const listed = (await (await app.request("/api/docs?language=es", { headers: auth() })).json()) as any;
    expect(listed.docs.map((d: any) => d.title)).toEqual(["Restablecer la contraseña"]);
    await app.request(`/api/knowledge/sources/${id}`, { method: "DELETE", headers: auth() });
  });

  test("languages: only those are fetched through alternates and imported; a start page in another language is read for its links, not kept", async () => {
    requests.length = 0;
    const res = await create({ name: "Spanish and English", start_url: `${origin}/de/reset`, languages: ["es", "EN"] });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { id: string; languages: string[] };
    expect(body.languages).toEqual(["es", "en"]);
    const done = await syncAndWait(app, token, body.id, false);
    expect(done.status).toBe("ready");
    const rows = await sourceDocs(body.id);
    expect(rows.map((d) => d.language).sort()).toEqual(["en", "es"]);
    expect(requests.filter((p) => p === "/de/reset").length).toBe(1); // the start page only
    await app.request(`/api/knowledge/sources/${body.id}`, { method: "DELETE", headers: auth() });
  });

  test("the page cap counts alternates as pages", async () => {
    const res = await create({ name: "Capped", start_url: `${origin}/en/reset`, max_pages: 2 });
    const { id } = (await res.json()) as { id: string };
    const done = await syncAndWait(app, token, id, false);
    expect(done.status).toBe("ready");
    expect((await sourceDocs(id)).length).toBe(2);
    expect(done.reason).toContain("max_pages (2)");
    await app.request(`/api/knowledge/sources/${id}`, { method: "DELETE", headers: auth() });
  });

  test("languages is checked: a bad code, none, more than 50 (50 taken), on a help centre", async () => {
    const codes = Array.from({ length: 51 }, (_, i) => `${String.fromCharCode(97 + Math.floor(i / 26))}${String.fromCharCode(97 + (i % 26))}`);
    for (const [languages, path] of [
      [["español"], "/languages/0"],
      [codes, "/languages"],
    ] as const) {
      const res = await create({ name: "Bad", start_url: `${origin}/en/reset`, languages });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.details.map((d: any) => d.path)).toContain(path);
    }
    expect((await create({ name: "Empty", start_url: `${origin}/en/reset`, languages: [] })).status).toBe(400);
    const fifty = await create({ name: "Fifty", start_url: `${origin}/en/reset`, languages: codes.slice(0, 50) });
    expect(fifty.status).toBe(201);
    await syncAndWait(app, token, ((await fifty.json()) as any).id, false);
    const zendesk = await app.request("/api/knowledge/sources", {
      headers: auth(),
      json: { kind: "zendesk", name: "ZD", base_url: `${origin}/zd`, languages: ["en"] },
    });
    expect(zendesk.status).toBe(400);
  });
});
