// Help-centre imports in several locales (README "Knowledge sources") against loopback servers
// speaking the documented shapes: Zendesk Guide's Help Center API once per locale
// (/api/v2/help_center/{locale}/articles.json: the same article id in each, its `locale`), and
// Intercom's Articles API (an article's `default_locale` and its `translated_content` by locale).
// Each imported article's language is set from its locale; its versions are linked as translations.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { docs } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { syncAndWait } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let token: string;
let server: ReturnType<typeof Bun.serve>;
let base: string;
const paths: string[] = [];
const INTERCOM_TOKEN = "dG9rOmZha2UtaW50ZXJjb20tdG9rZW4=";

const ZENDESK: Record<string, { id: number; title: string; body: string; section_id: number }[]> = {
  "en-us": [
    { id: 1, title: "Change your email", body: "<p>Open Profile, then Email.</p>", section_id: 10 },
    { id: 2, title: "Delete your account", body: "<p>Write to us; we delete it within 30 days.</p>", section_id: 10 },
  ],
  es: [{ id: 1, title: "Cambiar su correo", body: "<p>Abra Perfil y luego Correo.</p>", section_id: 10 }],
  de: [{ id: 1, title: "E-Mail ändern", body: "<p>Öffnen Sie Profil, dann E-Mail.</p>", section_id: 10 }],
};
const SECTIONS: Record<string, string> = { "en-us": "Account", es: "Cuenta", de: "Konto" };

const INTERCOM = [
  {
    id: "7",
    type: "article",
    title: "Connect Slack",
    body: "<p>You need admin rights.</p>",
    url: "https://help.acme.io/en/articles/7-connect-slack",
    state: "published",
    parent_id: 90,
    parent_type: "collection",
    default_locale: "en",
    translated_content: {
      type: "article_translated_content",
      es: {
        type: "article_content",
        title: "Conectar Slack",
        body: "<p>Necesita permisos de administrador.</p>",
        state: "published",
        url: "https://help.acme.io/es/articles/7-connect-slack",
      },
      "pt-BR": {
        type: "article_content",
        title: "Conectar o Slack",
        body: "<p>Você precisa de permissão de administrador.</p>",
        state: "draft",
        url: "https://help.acme.io/pt-BR/articles/7-connect-slack",
      },
    },
  },
  {
    id: "8",
    type: "article",
    title: "Export data",
    body: "<p>Choose CSV or JSON.</p>",
    url: "https://help.acme.io/en/articles/8-export",
    state: "published",
    parent_id: 90,
    parent_type: "collection",
    default_locale: "en",
    translated_content: null,
  },
];

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development" });
  org = await seedOrg(app);
  token = await signIn(app, org.admin_email, org.password);
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const url = new URL(request.url);
      paths.push(url.pathname);
      const json = (body: unknown, status = 200) => Response.json(body, { status });
      const zd = /^\/zd\/api\/v2\/help_center\/([a-z-]+)\/(sections|articles)\.json$/.exec(url.pathname);
      if (zd) {
        const [, locale, list] = zd as unknown as [string, string, string];
        // Zendesk answers an unknown locale with 404 ({"error":"InvalidLocale"} in practice).
        if (!ZENDESK[locale]) return json({ error: "InvalidLocale" }, 404);
        if (list === "sections") return json({ sections: [{ id: 10, name: SECTIONS[locale] }], next_page: null });
        return json({
          articles: ZENDESK[locale].map((a) => ({
            ...a,
            locale,
            source_locale: "en-us",
            draft: false,
            html_url: `https://acme.zendesk.com/hc/${locale}/articles/${a.id}`,
          })),
          next_page: null,
        });
      }
      if (!url.pathname.startsWith("/ic/")) return json({ error: "not found" }, 404);
      if (request.headers.get("authorization") !== `Bearer ${INTERCOM_TOKEN}` || !request.headers.get("intercom-version"))
        return json({ type: "error.list", errors: [{ code: "unauthorized" }] }, 401);
      if (url.pathname === "/ic/help_center/collections")
        return json({ type: "list", data: [{ id: "90", name: "Integrations" }], pages: { type: "pages", page: 1, total_pages: 1 } });
      if (url.pathname === "/ic/articles") return json({ type: "list", data: INTERCOM, pages: { type: "pages", page: 1, per_page: 50, total_pages: 1 } });
      return json({ error: "not found" }, 404);
    },
  });
  base = `http://127.0.0.1:${server.port}`;
}, 60_000);
afterAll(async () => {
  server.stop(true);
  await app.close();
});

const auth = () => ({ authorization: `Bearer ${token}` });
const create = (body: Record<string, unknown>) => app.request("/api/knowledge/sources", { headers: auth(), json: body });
const sourceDocs = async (sourceId: string) => app.deps.db.select().from(docs).where(eq(docs.sourceId, sourceId));

describe("help-centre locales", () => {
  test("Zendesk: each locale asked for is read; an article's versions carry their language and are linked by its id", async () => {
    const res = await create({ kind: "zendesk", name: "Zendesk", base_url: `${base}/zd`, locales: ["en-US", "es"] });
    expect(res.status).toBe(201);
    const source = (await res.json()) as { id: string; locales: string[] };
    expect(source.locales).toEqual(["en-us", "es"]);
    const done = await syncAndWait(app, token, source.id, false);
    expect(done.status).toBe("ready");
    expect(paths).toContain("/zd/api/v2/help_center/es/articles.json");
    expect(paths).not.toContain("/zd/api/v2/help_center/de/articles.json");
    const rows = await sourceDocs(source.id);
    expect(rows.map((d) => [d.language, d.title, d.tags]).sort()).toEqual([
      ["en", "Change your email", ["Account"]],
      ["en", "Delete your account", ["Account"]],
      ["es", "Cambiar su correo", ["Cuenta"]],
    ]);
    const email = rows.find((d) => d.title === "Change your email")!;
    const read = (await (await app.request(`/api/docs/${email.id}`, { headers: auth() })).json()) as any;
    expect(read.translations).toEqual([{ id: rows.find((d) => d.language === "es")!.id, language: "es", title: "Cambiar su correo" }]);
    const deleted = rows.find((d) => d.title === "Delete your account")!;
    expect(((await (await app.request(`/api/docs/${deleted.id}`, { headers: auth() })).json()) as any).translations).toEqual([]);
    // A third locale added later: read on the next sync, linked to the same article.
    const patched = await app.request(`/api/knowledge/sources/${source.id}`, { method: "PATCH", headers: auth(), json: { locales: ["en-us", "es", "de"] } });
    expect(patched.status).toBe(200);
    await syncAndWait(app, token, source.id);
    const after = (await (await app.request(`/api/docs/${email.id}`, { headers: auth() })).json()) as any;
    expect(after.translations.map((t: any) => t.language)).toEqual(["de", "es"]);
    // A locale the help centre does not have fails the sync with the reason, and removes nothing.
    await app.request(`/api/knowledge/sources/${source.id}`, { method: "PATCH", headers: auth(), json: { locales: ["en-us", "xx"] } });
    const failed = await syncAndWait(app, token, source.id);
    expect(failed.status).toBe("failed");
    expect(failed.reason).toContain("/help_center/xx/");
    expect((await sourceDocs(source.id)).length).toBe(4);
  });

  test("Zendesk without locales: its one locale, and the language from it", async () => {
    const res = await create({ kind: "zendesk", name: "One", base_url: `${base}/zd`, locale: "de" });
    const source = (await res.json()) as { id: string };
    expect((await syncAndWait(app, token, source.id, false)).status).toBe("ready");
    expect((await sourceDocs(source.id)).map((d) => [d.language, d.title])).toEqual([["de", "E-Mail ändern"]]);
  });

  test("Intercom: the default language and translated_content's published locales asked for, linked; without locales the default only", async () => {
    const res = await create({ kind: "intercom", name: "Intercom", base_url: `${base}/ic`, token: INTERCOM_TOKEN, locales: ["en", "es", "pt-BR", "fr"] });
    expect(res.status).toBe(201);
    const source = (await res.json()) as { id: string; locales: string[] };
    expect(source.locales).toEqual(["en", "es", "pt-BR", "fr"]);
    expect((await syncAndWait(app, token, source.id, false)).status).toBe("ready");
    const rows = await sourceDocs(source.id);
    // pt-BR is a draft; fr does not exist.
    expect(rows.map((d) => [d.language, d.title, d.url]).sort()).toEqual([
      ["en", "Connect Slack", "https://help.acme.io/en/articles/7-connect-slack"],
      ["en", "Export data", "https://help.acme.io/en/articles/8-export"],
      ["es", "Conectar Slack", "https://help.acme.io/es/articles/7-connect-slack"],
    ]);
    const slack = rows.find((d) => d.title === "Connect Slack")!;
    const es = rows.find((d) => d.language === "es")!;
    expect(slack.translationGroup).toBe(es.translationGroup);
    expect(rows.find((d) => d.title === "Export data")!.translationGroup).not.toBe(es.translationGroup);
    expect(es.tags).toEqual(["Integrations"]);
    const plain = await create({ kind: "intercom", name: "Default only", base_url: `${base}/ic`, token: INTERCOM_TOKEN });
    const plainId = ((await plain.json()) as { id: string }).id;
    expect((await syncAndWait(app, token, plainId, false)).status).toBe("ready");
    expect((await sourceDocs(plainId)).map((d) => d.language)).toEqual(["en", "en"]);
  });

  test("locales is checked: none, a bad one, too long, more than 20 (20 taken), on a website", async () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `e${String.fromCharCode(97 + i)}`);
    const cases: [Record<string, unknown>, number][] = [
      [{ locales: [] }, 400],
      [{ locales: ["en us"] }, 400],
      [{ locales: ["e"] }, 400],
      [{ locales: [`en-${"a".repeat(13)}`] }, 400],
      [{ locales: [...twenty, "fr"] }, 400],
    ];
    for (const [extra, status] of cases) {
      const res = await create({ kind: "zendesk", name: "Bad", base_url: `${base}/zd`, ...extra });
      expect(res.status).toBe(status);
      expect(((await res.json()) as any).error).toBeDefined();
    }
    const website = await create({ kind: "website", name: "Site", start_url: `${base}/`, locales: ["en"] });
    expect(website.status).toBe(400);
    expect(((await website.json()) as any).error.details.map((d: any) => d.path)).toContain("/locales");
    const ok = await create({ kind: "zendesk", name: "Twenty", base_url: `${base}/zd`, locales: twenty });
    expect(ok.status).toBe(201);
    await syncAndWait(app, token, ((await ok.json()) as any).id, false);
  });
});
