// An org's overrides of the catalogue's sentences (README "Languages"): GET and PUT
// /api/texts/{language}; ICU checked on save (400 in the error shape naming the key); limits at
// their boundary; roles; the widget's config serves the override at once (the cache is dropped).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CATALOGUES } from "../../src/i18n/catalogue.ts";
import { TEXTS_LIMITS } from "../../src/texts/store.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { addMember, type InboxOrg, seedInboxOrg } from "../inbox/helpers.ts";

let app: TestApp;
let org: InboxOrg;
let admin: Record<string, string>;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedInboxOrg(app);
  admin = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
}, 90_000);
afterAll(() => app.close());

const put = (language: string, texts: Record<string, unknown>, headers = admin) =>
  app.request(`/api/texts/${language}`, { method: "PUT", json: { texts }, headers });
const get = async (language: string) => (await (await app.request(`/api/texts/${language}`, { headers: admin })).json()) as any;

describe("GET and PUT /api/texts/{language}", () => {
  test("lists every key with the catalogue's message; an override shows, and the widget gets it at once", async () => {
    const before = await get("es-ES");
    expect(before.language).toBe("es");
    expect(before.has_catalogue).toBe(true);
    expect(before.texts.length).toBe(Object.keys(CATALOGUES.en!).length);
    expect(before.texts.find((s: any) => s.key === "widget.send")).toEqual({ key: "widget.send", catalogue: "Enviar", override: null, placeholders: [] });
    // The config is cached per org: read it once so the change must drop it.
    await app.request(`/api/sdk/config?org_id=${org.org_id}&locale=es`);
    const res = await put("es", { "widget.send": "Mandar", "widget.typing": "{name} escribe…" });
    expect(res.status).toBe(200);
    const after = (await res.json()) as any;
    expect(after.texts.find((s: any) => s.key === "widget.send").override).toBe("Mandar");
    const config = (await (await app.request(`/api/sdk/config?org_id=${org.org_id}&locale=es`)).json()) as any;
    expect(config.texts["widget.send"]).toBe("Mandar");
    expect(config.texts["widget.typing"]).toBe("{name} escribe…");
    // Other languages keep the catalogue.
    const german = (await (await app.request(`/api/sdk/config?org_id=${org.org_id}&locale=de`)).json()) as any;
    expect(german.texts["widget.send"]).toBe("Senden");
    // null (or "") says the catalogue's again.
    expect((await put("es", { "widget.send": null, "widget.typing": "" })).status).toBe(200);
    expect((await get("es")).texts.filter((s: any) => s.override !== null)).toEqual([]);
  });

  test("a language without a catalogue may be overridden too", async () => {
    expect((await put("sv", { "widget.send": "Skicka" })).status).toBe(200);
    const swedish = await get("sv");
    expect(swedish.has_catalogue).toBe(false);
    expect(swedish.texts.find((s: any) => s.key === "widget.send")).toMatchObject({ catalogue: "Send", override: "Skicka" });
  });

  test("bad messages are a 400 naming the key: unknown key, ICU that does not parse, a placeholder the sentence lacks", async () => {
    for (const [texts, path, words] of [
      [{ "widget.nope": "x" }, "/texts/widget.nope", "is not a key of the catalogue"],
      [{ "widget.typing": "{name escribe" }, "/texts/widget.typing", "is not a valid ICU message"],
      [{ "agent.ticket_opened": "Ticket {numero}" }, "/texts/agent.ticket_opened", "{numero}"],
      [{ "widget.wait": "Espera {seconds, plural, one {# s}}" }, "/texts/widget.wait", "is not a valid ICU message"],
    ] as const) {
      const res = await put("es", texts);
      expect(res.status).toBe(400);
      const body = (await res.json()) as any;
      expect(body.error.code).toBe("validation_failed");
      expect(body.error.details[0].path).toBe(path);
      expect(body.error.details[0].message).toContain(words);
    }
    // Nothing of a refused request is written.
    expect((await put("es", { "widget.send": "Vale", "widget.nope": "x" })).status).toBe(400);
    expect((await get("es")).texts.find((s: any) => s.key === "widget.send").override).toBeNull();
  });

  test("limits at their boundary: the message's length, keys per request, the language tag", async () => {
    expect((await put("es", { "widget.send": "a".repeat(TEXTS_LIMITS.message) })).status).toBe(200);
    expect((await put("es", { "widget.send": "a".repeat(TEXTS_LIMITS.message + 1) })).status).toBe(400);
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`widget.k${i}`, null]));
    const atLimit = await put("es", many(TEXTS_LIMITS.keysPerRequest));
    expect(atLimit.status).toBe(400); // unknown keys, but not refused for their number
    expect(((await atLimit.json()) as any).error.details[0].message).toBe("is not a key of the catalogue");
    expect((await put("es", many(TEXTS_LIMITS.keysPerRequest + 1))).status).toBe(400);
    expect((await app.request(`/api/texts/${"x".repeat(36)}`, { headers: admin })).status).toBe(400);
    expect((await app.request("/api/texts/1234", { headers: admin })).status).toBe(400);
  });

  test("reading takes agents:view; changing takes org:manage; no session is a 401", async () => {
    const viewer = await addMember(app, org.org_id, ["agents:view"]);
    const headers = { authorization: `Bearer ${viewer.token}` };
    expect((await app.request("/api/texts/es", { headers })).status).toBe(200);
    expect((await put("es", { "widget.send": "Mandar" }, headers)).status).toBe(403);
    expect((await app.request("/api/texts/es")).status).toBe(401);
  });
});
