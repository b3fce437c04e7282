// The org's translator (/api/translation, Settings → Translation) and the member's reading language
// (/api/me/profile, the account page): the key stored encrypted and never returned, every field
// checked at its limit and one over, internal URLs refused, the roles of the model settings; and
// hostile sizes bounded — an answer over TRANSLATION_LIMITS.responseBytes, a reply at the message
// limit and one over, a translation longer than a message may be — never half a text.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { activityLog, orgTranslationSettings, ticketMessages } from "../../src/db/schema/index.ts";
import { addTicketMessage, createTicket, TICKET_LIMITS } from "../../src/inbox/tickets.ts";
import { TRANSLATION_LIMITS } from "../../src/translation/errors.ts";
import { keyContext, TRANSLATION_SETTING_LIMITS } from "../../src/translation/settings.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { addMember, seedCustomer } from "../inbox/helpers.ts";
import { fakeLibreTranslate, type FakeTranslator } from "./fakes.ts";

let app: TestApp;
let fake: FakeTranslator;
beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development" });
  fake = await fakeLibreTranslate();
  app.hosts.set("translate.example.com", ["93.184.216.34"]);
  app.hosts.set("intranet.example.com", ["10.1.2.3"]);
}, 60_000);
afterAll(async () => {
  await fake.close();
  await app.close();
});

async function admin() {
  const org = await seedOrg(app);
  return { org, auth: { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` } };
}
const put = (auth: Record<string, string>, json: unknown) => app.request("/api/translation", { method: "PUT", headers: auth, json });
const paths = async (res: Response) => ((await res.json()) as { error: { details?: { path: string }[] } }).error.details?.map((d) => d.path) ?? [];

describe("the translator's settings", () => {
  test("the key is stored encrypted, never returned, and forgotten when the server changes", async () => {
    const { org, auth } = await admin();
    const key = "deepl-secret-key-0001:fx";
    const res = await put(auth, { provider: "deepl", api_key: key });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(key);
    expect(JSON.parse(text)).toEqual({ provider: "deepl", base_url: null, api_key_set: true });
    const got = await (await app.request("/api/translation", { headers: auth })).text();
    expect(got).not.toContain(key);
    const [row] = await app.deps.db.select().from(orgTranslationSettings).where(eq(orgTranslationSettings.orgId, org.org_id));
    expect(row!.apiKey).toStartWith("v1.");
    expect(JSON.stringify(row)).not.toContain(key);
    expect(app.deps.cipher.decrypt(row!.apiKey!, keyContext(org.org_id))).toBe(key);
    // Bound to this org's row: another org's context cannot read it.
    expect(() => app.deps.cipher.decrypt(row!.apiKey!, keyContext(crypto.randomUUID()))).toThrow();
    const logged = await app.deps.db.select().from(activityLog).where(eq(activityLog.orgId, org.org_id));
    expect(logged.map((l) => l.action)).toContain("translation_settings.changed");
    expect(JSON.stringify(logged)).not.toContain(key);
    expect(JSON.stringify(app.logs)).not.toContain(key);

    // Kept when only the provider's settings are saved again; forgotten when the server changes.
    expect(await (await put(auth, { provider: "deepl" })).json()).toEqual({ provider: "deepl", base_url: null, api_key_set: true });
    const moved = await put(auth, { provider: "libretranslate", base_url: "https://translate.example.com/" });
    expect(await moved.json()).toEqual({ provider: "libretranslate", base_url: "https://translate.example.com", api_key_set: false });
    expect((await app.request("/api/translation", { method: "DELETE", headers: auth })).status).toBe(200);
    expect(await (await app.request("/api/translation", { headers: auth })).json()).toEqual({ provider: null, base_url: null, api_key_set: false });
  });

  test("bad settings are 400 naming the field; limits at the boundary", async () => {
    const { auth } = await admin();
    const L = TRANSLATION_SETTING_LIMITS;
    expect((await put(auth, { provider: "libretranslate", base_url: fake.baseUrl, api_key: "k".repeat(L.apiKey) })).status).toBe(200);
    const long = await put(auth, { provider: "libretranslate", base_url: fake.baseUrl, api_key: "k".repeat(L.apiKey + 1) });
    expect(long.status).toBe(400);
    const url = `https://translate.example.com/${"a".repeat(L.baseUrl - 30)}`;
    expect(url.length).toBe(L.baseUrl);
    expect((await put(auth, { provider: "libretranslate", base_url: url })).status).toBe(200);
    expect((await put(auth, { provider: "libretranslate", base_url: `${url}a` })).status).toBe(400);
    expect(await paths(await put(auth, { provider: "libretranslate" }))).toEqual(["/base_url"]);
    expect(await paths(await put(auth, { provider: "deepl" }))).toEqual(["/api_key"]);
    expect(await paths(await put(auth, { provider: "model", base_url: fake.baseUrl }))).toEqual(["/base_url"]);
    expect(await paths(await put(auth, { provider: "deepl", api_key: "has space" }))).toEqual(["/api_key"]);
    for (const base_url of [
      "https://intranet.example.com/",
      "https://169.254.169.254/",
      "http://translate.example.com/",
      "https://user:pw@translate.example.com/",
    ])
      expect(await paths(await put(auth, { provider: "libretranslate", base_url })), base_url).toEqual(["/base_url"]);
    expect((await put(auth, { provider: "google" })).status).toBe(400);
  });

  test("roles: agents:view reads, agents:manage changes; another org's settings are its own", async () => {
    const { org, auth } = await admin();
    await put(auth, { provider: "libretranslate", base_url: fake.baseUrl, api_key: "lt-key-123" });
    const viewer = await addMember(app, org.org_id, ["agents:view"]);
    const bearer = { authorization: `Bearer ${viewer.token}` };
    expect((await app.request("/api/translation", { headers: bearer })).status).toBe(200);
    expect((await put(bearer, { provider: "model" })).status).toBe(403);
    expect((await app.request("/api/translation", { method: "DELETE", headers: bearer })).status).toBe(403);
    const inbox = await addMember(app, org.org_id, ["inbox:view"]);
    expect((await app.request("/api/translation", { headers: { authorization: `Bearer ${inbox.token}` } })).status).toBe(403);
    const other = await admin();
    expect(await (await app.request("/api/translation", { headers: other.auth })).json()).toEqual({ provider: null, base_url: null, api_key_set: false });
    expect((await app.request("/api/translation")).status).toBe(401);
  });
});

describe("Settings → Translation in the dashboard", () => {
  test("saves through the form; the key is never written back into the page; a missing URL is an error beside its field", async () => {
    const org = await seedOrg(app);
    const signin = await app.request("/signin", {
      form: { email: org.admin_email, password: org.password, return_to: "/dashboard" },
      headers: { origin: app.deps.config.baseUrl },
    });
    const cookie = signin.headers.get("set-cookie")!.split(";")[0]!;
    const post = (form: Record<string, string>) =>
      app.request("/dashboard/settings/translation", { form, headers: { cookie, origin: app.deps.config.baseUrl } });
    const empty = await (await app.request("/dashboard/settings/translation", { headers: { cookie } })).text();
    expect(empty).toContain("No translator is chosen");
    const saved = await post({ provider: "deepl", base_url: "", api_key: "deepl-form-key-42" });
    expect(saved.status).toBe(303);
    const page = await (await app.request("/dashboard/settings/translation", { headers: { cookie } })).text();
    expect(page).toContain("Translating with <strong>DeepL</strong>");
    expect(page).toContain("A key is stored (never shown)");
    expect(page).not.toContain("deepl-form-key-42");
    const missing = await post({ provider: "libretranslate", base_url: "", api_key: "" });
    expect(missing.status).toBe(400);
    const html = await missing.text();
    expect(html).toMatch(/id="f-base_url-error"[^>]*>[^<]*required/);
    expect(html).not.toContain("deepl-form-key-42");
  });
});

describe("the member's reading language", () => {
  test("set on /api/me/profile: a listed language, null for English, anything else 400", async () => {
    const { auth } = await admin();
    const patch = (json: unknown) => app.request("/api/me/profile", { method: "PATCH", headers: auth, json });
    expect(((await (await app.request("/api/me/profile", { headers: auth })).json()) as { language: unknown }).language).toBeNull();
    const set = await patch({ name: "Ana", avatar_url: null, language: "de-AT" });
    expect(set.status).toBe(200);
    expect(((await set.json()) as { language: string }).language).toBe("de");
    // Absent: unchanged.
    expect(((await (await patch({ name: "Ana", avatar_url: null })).json()) as { language: string }).language).toBe("de");
    for (const language of ["xx", "not a tag", "tlh"])
      expect(await paths(await patch({ name: "Ana", avatar_url: null, language })), language).toEqual(["/language"]);
    expect((await patch({ name: "Ana", avatar_url: null, language: "x".repeat(36) })).status).toBe(400);
    expect(((await (await patch({ name: "Ana", avatar_url: null, language: null })).json()) as { language: unknown }).language).toBeNull();
  });
});

describe("hostile sizes", () => {
  const SPANISH = "Hola, me cobraron dos veces la factura de marzo y necesito que me devuelvan el dinero.";
  async function spanishTicket() {
    const { org, auth } = await admin();
    await put(auth, { provider: "libretranslate", base_url: fake.baseUrl, api_key: fake.key });
    const customer = await seedCustomer(app, org.org_id, { name: "Lucía" });
    const ticket = await createTicket(app.deps, {
      orgId: org.org_id,
      actor: { kind: "customer", endUserId: customer.id },
      input: { subject: "Factura", message: SPANISH, customerId: customer.id, source: "api" },
    });
    return { auth, ticketId: ticket.id };
  }
  const replies = (ticketId: string) =>
    app.deps.db
      .select({ body: ticketMessages.body })
      .from(ticketMessages)
      .where(and(eq(ticketMessages.ticketId, ticketId), eq(ticketMessages.kind, "reply")));

  test(`a view translates at most ${TRANSLATION_LIMITS.perView} messages; the one over waits for the next view, and none is asked twice`, async () => {
    const org = await seedOrg(app);
    const auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
    await put(auth, { provider: "libretranslate", base_url: fake.baseUrl, api_key: fake.key });
    const signin = await app.request("/signin", {
      form: { email: org.admin_email, password: org.password, return_to: "/dashboard" },
      headers: { origin: app.deps.config.baseUrl },
    });
    const cookie = signin.headers.get("set-cookie")!.split(";")[0]!;
    const customer = await seedCustomer(app, org.org_id, { name: "Lucía" });
    const actor = { kind: "customer" as const, endUserId: customer.id };
    const texts = Array.from({ length: TRANSLATION_LIMITS.perView + 1 }, (_, i) => `Mensaje número ${i + 1}: ${SPANISH}`);
    const ticket = await createTicket(app.deps, {
      orgId: org.org_id,
      actor,
      input: { subject: "Factura", message: texts[0]!, customerId: customer.id, source: "api" },
    });
    for (const text of texts.slice(1)) await addTicketMessage(app.deps, { orgId: org.org_id, actor, ticketId: ticket.id, kind: "customer", body: text });
    for (let i = 1; i <= texts.length; i++) fake.next(`Message number ${i} in English`);
    const start = fake.requests.length;
    const view = () => app.request(`/dashboard/inbox/${ticket.number}`, { headers: { cookie } }).then((r) => r.text());
    const first = await view();
    expect(fake.requests.length - start).toBe(TRANSLATION_LIMITS.perView);
    expect(first).toContain(`Message number ${TRANSLATION_LIMITS.perView} in English`);
    expect(first).not.toContain(`Message number ${TRANSLATION_LIMITS.perView + 1} in English`);
    expect(first).toContain("not translated yet (it is, when the ticket is opened again)");
    const second = await view();
    expect(fake.requests.length - start).toBe(TRANSLATION_LIMITS.perView + 1);
    expect(second).toContain(`Message number ${TRANSLATION_LIMITS.perView + 1} in English`);
    await view();
    expect(fake.requests.length - start).toBe(TRANSLATION_LIMITS.perView + 1);
  });

  test("a reply at the message limit is translated whole; one over is 400; an answer too large or a translation too long sends nothing", async () => {
    const { auth, ticketId } = await spanishTicket();
    const reply = (body: string) => app.request(`/api/tickets/${ticketId}/replies`, { headers: auth, json: { body, translate: true } });
    expect(TRANSLATION_LIMITS.text).toBe(TICKET_LIMITS.body);
    const atLimit = "word ".repeat(TICKET_LIMITS.body / 5);
    expect(atLimit.length).toBe(TICKET_LIMITS.body);

    const start = fake.requests.length;
    fake.next("palabra ".repeat(1000).trim());
    const whole = await reply(atLimit);
    expect(whole.status).toBe(201);
    expect(fake.requests[start]!.body.q).toBe(atLimit); // sent whole, never cut
    expect(fake.requests[start]!.body).toMatchObject({ source: "en", target: "es" });

    expect((await reply(`${atLimit}x`)).status).toBe(400);
    expect(fake.requests.length).toBe(start + 1); // refused before the translator

    // An answer larger than the bound is refused, not read on.
    fake.next("x".repeat(TRANSLATION_LIMITS.responseBytes));
    const huge = await reply("A short reply.");
    expect(huge.status).toBe(502);
    expect(((await huge.json()) as { error: { message: string } }).error.message).toContain(`larger than ${TRANSLATION_LIMITS.responseBytes} bytes`);

    // A translation longer than a message may be: not cut, not sent.
    fake.next("y".repeat(TICKET_LIMITS.body + 1));
    const long = await reply("Another short reply.");
    expect(long.status).toBe(502);
    expect(((await long.json()) as { error: { message: string } }).error.message).toContain("longer than a reply may be");
    expect((await replies(ticketId)).map((r) => r.body.slice(0, 8))).toEqual(["palabra "]);
  });
});
