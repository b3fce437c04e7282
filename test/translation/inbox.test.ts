// Two-way translation in the inbox (README "Languages" → "Translation"), against loopback
// LibreTranslate, DeepL and OpenAI-compatible servers speaking their wire formats: a Spanish
// customer's message is shown translated to an English member (translated once, stored, the
// original one click away); the member's English reply reaches the customer in Spanish in the
// widget's conversation events and by email (a real SMTP server on loopback), with the original
// kept for members; a refusal (403), an outage (500) and a stopped translator each leave the
// reply unsent with the error, in the API and on the ticket page (the text kept in the form).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { createSender } from "../../src/compose.ts";
import { outbox, ticketMessages } from "../../src/db/schema/index.ts";
import { REPLY_MAIL_KIND, REPLY_SEEN_GRACE_MS } from "../../src/inbox/reply-mail.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../support/chat.ts";
import { emailEnv } from "../support/email.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { readEvents } from "../support/sse.ts";
import { fakeDeepl, fakeLibreTranslate, fakeModel, type FakeTranslator } from "./fakes.ts";

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;

beforeAll(async () => {
  smtp = await startSmtp();
  // Development: the translators are on this machine (the outbound guard allows loopback only then).
  app = await createTestApp({ ...emailEnv(smtp.url), NODE_ENV: "development" });
  sender = createSender(app.deps);
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
});

const SPANISH = "Hola, me cobraron dos veces la factura de marzo y necesito que me devuelvan el dinero.";
const ENGLISH = "Hello, I was charged twice for the March invoice and I need my money back.";
const REPLY = "Your refund is on its way: you will see it within five days.";
const RESPUESTA = "Su reembolso está en camino: lo verá en cinco días.";

interface Scene {
  org: ChatOrg;
  auth: Record<string, string>;
  cookie: string;
  email: string;
  sessionId: string;
  ticketId: string;
  number: number;
  widget: Record<string, string>;
}

let n = 0;
/** A Spanish customer whose chat was handed to a person, and the org's admin signed in (API and browser). */
async function scene(): Promise<Scene> {
  const org = await seedChatOrg(app, { docs: false });
  const auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  const signin = await app.request("/signin", {
    form: { email: org.admin_email, password: org.password, return_to: "/dashboard" },
    headers: { origin: app.deps.config.baseUrl },
  });
  const cookie = signin.headers.get("set-cookie")!.split(";")[0]!;
  const userId = `es-${++n}`;
  const email = `${userId}@cliente.example`;
  const widget = { authorization: `Bearer ${org.widget_key}`, "x-user-id": userId };
  expect((await app.request("/api/sdk/users/identify", { headers: { authorization: widget.authorization }, json: { user_id: userId, email } })).status).toBe(
    200,
  );
  const handed = await chatJson(app, org, { message: "I want to talk to a person", user_id: userId });
  await chatJson(app, org, { message: SPANISH, user_id: userId, session_id: handed.session_id });
  const ticket = (await (await app.request(`/api/tickets/${handed.routing.ticket_id}`, { headers: auth })).json()) as { id: string; number: number };
  return { org, auth, cookie, email, sessionId: handed.session_id, ticketId: ticket.id, number: ticket.number, widget };
}

/** Points the org at `fake` (the model: its LLM settings, then translation by the model). */
async function configure(s: Scene, fake: FakeTranslator) {
  if (fake.kind === "model") {
    const llm = await app.request("/api/llm", {
      method: "PUT",
      headers: s.auth,
      json: { provider: "openai", base_url: fake.baseUrl, model: "translator-1", api_key: fake.key },
    });
    expect(llm.status).toBe(200);
  }
  const body = fake.kind === "model" ? { provider: "model" } : { provider: fake.kind, base_url: fake.baseUrl, api_key: fake.key };
  const res = await app.request("/api/translation", { method: "PUT", headers: s.auth, json: body });
  expect(res.status).toBe(200);
}

const page = async (s: Scene) => {
  const res = await app.request(`/dashboard/inbox/${s.number}`, { headers: { cookie: s.cookie } });
  expect(res.status).toBe(200);
  return res.text();
};

/** What the fake was asked to translate, as the wire format carries it. */
function asked(fake: FakeTranslator, i: number): { text: string; from: unknown; to: unknown } {
  const body = fake.requests[i]!.body;
  if (fake.kind === "libretranslate") return { text: body.q, from: body.source, to: body.target };
  if (fake.kind === "deepl") return { text: body.text[0], from: body.source_lang, to: body.target_lang };
  return { text: body.messages.at(-1).content, from: body.messages[0].content, to: body.messages[0].content };
}

function checkWire(fake: FakeTranslator, i: number, text: string, from: string, to: string) {
  const r = fake.requests[i]!;
  const got = asked(fake, i);
  expect(got.text).toBe(text);
  if (fake.kind === "libretranslate") {
    expect(r.path).toBe("/translate");
    expect(r.body).toEqual({ q: text, source: from, target: to, format: "text", api_key: fake.key });
  } else if (fake.kind === "deepl") {
    expect(r.path).toBe("/v2/translate");
    expect(r.headers.authorization).toBe(`DeepL-Auth-Key ${fake.key}`);
    expect(r.body).toEqual({ text: [text], target_lang: to === "en" ? "EN-US" : to.toUpperCase(), source_lang: from.toUpperCase() });
  } else {
    expect(r.path).toBe("/v1/chat/completions");
    expect(r.headers.authorization).toBe(`Bearer ${fake.key}`);
    expect(r.body.model).toBe("translator-1");
    const names: Record<string, string> = { en: "English", es: "Spanish" };
    expect(r.body.messages[0]).toMatchObject({ role: "system" });
    expect(r.body.messages[0].content).toContain(`from ${names[from]} into ${names[to]}`);
    expect(r.body.messages.slice(1)).toEqual([{ role: "user", content: text }]);
  }
}

const replies = async (s: Scene) =>
  app.deps.db
    .select({ body: ticketMessages.body })
    .from(ticketMessages)
    .where(and(eq(ticketMessages.ticketId, s.ticketId), eq(ticketMessages.kind, "reply")));

const makers: [string, () => Promise<FakeTranslator>][] = [
  ["LibreTranslate", () => fakeLibreTranslate()],
  ["DeepL", () => fakeDeepl()],
  ["an OpenAI-compatible model", () => fakeModel()],
];

describe.each(makers)("through %s", (_name, make) => {
  let fake: FakeTranslator;
  beforeAll(async () => {
    fake = await make();
  });
  afterAll(() => fake.close());

  test("the Spanish message shown in English, once; the English reply reaches the widget and the mailbox in Spanish, the original kept", async () => {
    const s = await scene();
    // No translator yet: the ticket says so, shows the message as written, and the reply form offers no translation.
    const before = await page(s);
    expect(before).toContain("No translator is configured");
    expect(before).toContain(SPANISH);
    expect(before).not.toContain('name="translate"');

    await configure(s, fake);
    const start = fake.requests.length;
    fake.next(ENGLISH);
    const shown = await page(s);
    expect(fake.requests.length).toBe(start + 1);
    checkWire(fake, start, SPANISH, "es", "en");
    expect(shown).toContain("Translated from Spanish");
    expect(shown).toContain(`<div class="turn-text" lang="en">${ENGLISH}</div>`);
    expect(shown).toMatch(/<details class="original"><summary>Original \(Spanish\)<\/summary><div class="turn-text" lang="es">Hola, me cobraron/);
    expect(shown).not.toContain("No translator is configured");
    // The reply form offers to send in Spanish, checked.
    expect(shown).toMatch(/<input type="checkbox" id="f-translate" name="translate" value="on" checked/);
    // A second view reads the stored translation: the translator is not asked again.
    expect(await page(s)).toContain(ENGLISH);
    expect(fake.requests.length).toBe(start + 1);

    const view = (await (await app.request(`/api/sdk/conversations/${s.sessionId}`, { headers: s.widget })).json()) as { last_event_id: string };
    fake.next(RESPUESTA);
    const res = await app.request(`/api/tickets/${s.ticketId}/replies`, { headers: s.auth, json: { body: REPLY, translate: true } });
    expect(res.status).toBe(201);
    const sent = (await res.json()) as { id: string; body: string; original: unknown };
    expect(sent.body).toBe(RESPUESTA);
    expect(sent.original).toEqual({ language: "en", body: REPLY });
    checkWire(fake, start + 1, REPLY, "en", "es");

    // By email, once the widget had its chance to show it (README "Email channel").
    await sender.tick();
    app.clock.advance(REPLY_SEEN_GRACE_MS);
    await sender.tick();
    const mails = smtp.received.filter((m) => m.to.includes(s.email));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.parts.get("text/plain")).toContain(RESPUESTA);
    expect(mails[0]!.raw).not.toContain("on its way");

    // In the widget's conversation events: the Spanish text, never the English original.
    const events = readEvents(
      await app.request(`/api/sdk/conversations/${s.sessionId}/events`, { headers: { ...s.widget, "last-event-id": view.last_event_id } }),
    );
    const message = await events.waitFor((e) => e.event === "message" && JSON.parse(e.data).kind === "person");
    events.close();
    expect(JSON.parse(message.data).text).toBe(RESPUESTA);
    expect(events.events.some((e) => e.data.includes("on its way"))).toBe(false);

    // Members see what they wrote, and what the customer received beside it.
    const after = await page(s);
    expect(after).toContain("Sent to the customer in Spanish; as you wrote it:");
    expect(after).toContain(`<div class="turn-text" lang="en">${REPLY}</div>`);
    expect(after).toContain(`<summary>What the customer received (Spanish)</summary><div class="turn-text" lang="es">${RESPUESTA}</div>`);
    expect(fake.requests.length).toBe(start + 2);
  });

  test("a refusal (403) and an outage (500) leave the reply unsent with the error; the page keeps the text", async () => {
    const s = await scene();
    await configure(s, fake);
    fake.next(ENGLISH);
    await page(s);
    const queued = async () =>
      (
        await app.deps.db
          .select()
          .from(outbox)
          .where(and(eq(outbox.orgId, s.org.org_id), eq(outbox.kind, REPLY_MAIL_KIND)))
      ).length;

    fake.refuse(403);
    const refused = await app.request(`/api/tickets/${s.ticketId}/replies`, { headers: s.auth, json: { body: REPLY, translate: true } });
    expect(refused.status).toBe(502);
    const error = ((await refused.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("translation_failed");
    expect(error.message).toMatch(/refused.*403.*The reply was not sent\./);

    fake.refuse(500);
    const out = await app.request(`/api/tickets/${s.ticketId}/replies`, { headers: s.auth, json: { body: REPLY, translate: true } });
    expect(out.status).toBe(502);
    expect(((await out.json()) as { error: { message: string } }).error.message).toMatch(/(failing|failed).*500.*The reply was not sent\./);

    // The dashboard's form: the error beside the reply, the text still in the field, nothing sent.
    fake.refuse(403);
    const form = await app.request(`/dashboard/inbox/${s.number}/reply`, {
      form: { reply: REPLY, translate: "on" },
      headers: { cookie: s.cookie, origin: app.deps.config.baseUrl },
    });
    expect(form.status).toBe(502);
    const html = await form.text();
    expect(html).toContain("The reply was not sent.");
    expect(html).toMatch(new RegExp(`<textarea[^>]*name="reply"[^>]*>${REPLY}</textarea>`));
    expect(html).toMatch(/name="translate" value="on" checked/);

    expect(await replies(s)).toEqual([]);
    expect(await queued()).toBe(0);
    // Without translation the same reply goes out as written.
    const plain = await app.request(`/api/tickets/${s.ticketId}/replies`, { headers: s.auth, json: { body: REPLY } });
    expect(plain.status).toBe(201);
    expect(await replies(s)).toEqual([{ body: REPLY }]);
  });
});

test("a stopped translator: the reply is not sent, and the customer's messages are shown as written with the reason", async () => {
  const fake = await fakeLibreTranslate();
  const s = await scene();
  await configure(s, fake);
  await fake.close();
  const res = await app.request(`/api/tickets/${s.ticketId}/replies`, { headers: s.auth, json: { body: REPLY, translate: true } });
  expect(res.status).toBe(502);
  expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/LibreTranslate could not be reached.*The reply was not sent\./);
  expect(await replies(s)).toEqual([]);
  const shown = await page(s);
  expect(shown).toContain(SPANISH);
  expect(shown).toMatch(/Not translated from Spanish: Translation failed: LibreTranslate could not be reached/);
});

test("no translator configured: translate: true is refused (409) and nothing is sent", async () => {
  const s = await scene();
  const res = await app.request(`/api/tickets/${s.ticketId}/replies`, { headers: s.auth, json: { body: REPLY, translate: true } });
  expect(res.status).toBe(409);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("translation_unavailable");
  expect(await replies(s)).toEqual([]);
});
