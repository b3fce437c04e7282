// GET /api/sdk/config speaks the customer's language (README "Languages"): `locale` when it is a
// language tag, else the org's default; `dir` for right-to-left languages; `texts` the widget's
// sentences from the catalogue.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { orgs } from "../../src/db/schema/index.ts";
import { CATALOGUES, WIDGET_KEYS } from "../../src/i18n/catalogue.ts";
import { ensureDemo } from "../../src/orgs/demo.ts";
import { createTestApp, type TestApp } from "../support/app.ts";

let app: TestApp;
let orgId: string;

beforeAll(async () => {
  app = await createTestApp();
  orgId = (await ensureDemo(app.deps))!.orgId;
}, 90_000);
afterAll(() => app.close());

const config = async (query: string) => {
  const res = await app.request(`/api/sdk/config?org_id=${orgId}${query}`);
  return { status: res.status, body: (await res.json()) as any };
};

test("a locale picks the widget's language and texts; a regional tag counts as its language", async () => {
  const { status, body } = await config("&locale=es-MX");
  expect(status).toBe(200);
  expect(body.language).toBe("es");
  expect(body.dir).toBe("ltr");
  expect(Object.keys(body.texts).sort()).toEqual([...WIDGET_KEYS].sort());
  expect(body.texts["widget.placeholder"]).toBe("Haz una pregunta…");
  expect(body.texts["widget.live_help"]).toBe(CATALOGUES.es!["widget.live_help"]);
});

test("Arabic is written right to left", async () => {
  const { body } = await config("&locale=ar");
  expect(body.language).toBe("ar");
  expect(body.dir).toBe("rtl");
  expect(body.texts["widget.send"]).toBe("إرسال");
});

test("no locale, or one that is not a tag: the org's default language; no catalogue: English texts", async () => {
  expect((await config("")).body.language).toBe("en");
  await app.deps.db.update(orgs).set({ defaultLanguage: "de" }).where(eq(orgs.id, orgId));
  const fallback = await config("&locale=not%20a%20tag");
  expect(fallback.body.language).toBe("de");
  expect(fallback.body.texts["widget.send"]).toBe("Senden");
  const swahili = await config("&locale=sw");
  expect(swahili.body.language).toBe("sw");
  expect(swahili.body.texts["widget.send"]).toBe("Send");
  await app.deps.db.update(orgs).set({ defaultLanguage: "en" }).where(eq(orgs.id, orgId));
});

test("locale is bounded: 35 characters pass, 36 are a 400 in the error shape", async () => {
  expect((await config(`&locale=${"a".repeat(35)}`)).status).toBe(200);
  const over = await config(`&locale=${"a".repeat(36)}`);
  expect(over.status).toBe(400);
  expect(over.body.error.code).toBeString();
});
