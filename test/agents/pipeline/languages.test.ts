// The chat in the customer's language (README "Languages"): a Spanish customer gets the Spanish
// no-answer, hand-off and waiting-line sentences, the conversation and its ticket carry `es`; a
// widget locale decides where the message cannot tell; an org's override of one sentence in one
// language is what that customer reads; with a model, the system prompt names the language.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { transcriptsSettled } from "../../../src/agents/turn.ts";
import { sha256Hex } from "../../../src/crypto/tokens.ts";
import { conversations, tickets } from "../../../src/db/schema/index.ts";
import { CATALOGUES } from "../../../src/i18n/catalogue.ts";
import { createTestApp, signIn, type TestApp } from "../../support/app.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../../support/chat.ts";
import { fakeOpenAi, type FakeLlm } from "../../support/fake-llm.ts";

const es = CATALOGUES.es!;
let app: TestApp;
let org: ChatOrg;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedChatOrg(app);
}, 90_000);
afterAll(() => app.close());

const conversationOf = async (sessionId: string) => {
  await transcriptsSettled(app.deps);
  const [row] = await app.deps.db
    .select()
    .from(conversations)
    .where(and(eq(conversations.orgId, org.org_id), eq(conversations.sessionHash, sha256Hex(sessionId))));
  return row!;
};

describe("a Spanish customer, builtin provider", () => {
  test("a question the help articles cannot answer: the Spanish no-answer, offering a person", async () => {
    const answer = await chatJson(app, org, { message: "¿Puedo pagar mi suscripción con criptomonedas desde Venezuela?", user_id: "es-1" });
    expect(answer.text.startsWith("Lo siento, no he encontrado la respuesta")).toBe(true);
    expect(answer.text).not.toContain("I'm sorry");
    expect(answer.actions).toContainEqual({ type: "offer_person", label: es["widget.live_help"] });
    expect((await conversationOf(answer.session_id)).language).toBe("es");
  });

  test("asking for a person: the Spanish hand-off; asking again: the Spanish waiting line; the ticket is Spanish", async () => {
    const first = await chatJson(app, org, { message: "Quiero hablar con una persona, por favor", user_id: "es-2" });
    expect(first.routing.action).toBe("live_help");
    expect(first.text).toStartWith("He pedido a una persona de nuestro equipo que continúe la conversación");
    expect(first.text).toContain("Te responderá aquí lo antes posible.");
    const again = await chatJson(app, org, {
      message: "¿Hay alguien ahí? Sigo esperando a una persona",
      mode: "livehelp",
      user_id: "es-2",
      session_id: first.session_id,
    });
    expect(again.text).toBe(
      `He añadido tu mensaje al ticket n.º ${first.actions[0].ticket_number}. Una persona de nuestro equipo te responderá aquí lo antes posible.`,
    );
    const [ticket] = await app.deps.db.select().from(tickets).where(eq(tickets.id, first.routing.ticket_id));
    expect(ticket?.language).toBe("es");
  });

  test("a message too short to tell takes the widget's locale; a later Spanish message switches the conversation", async () => {
    const short = await chatJson(app, org, { message: "??", user_id: "de-1", locale: "de-AT" });
    expect(short.text).toBe(CATALOGUES.de!["agent.ask_back"]);
    expect((await conversationOf(short.session_id)).language).toBe("de");
    const spanish = await chatJson(app, org, {
      message: "Necesito ayuda con mi factura de criptomonedas en Marte",
      user_id: "de-1",
      session_id: short.session_id,
      locale: "de-AT",
    });
    expect(spanish.text).toStartWith("Lo siento");
    expect((await conversationOf(short.session_id)).language).toBe("es");
  });

  test("the org's override of one sentence in one language is what that customer reads; other languages keep the catalogue", async () => {
    const members = await signIn(app, org.admin_email, org.password);
    const own = "¡Uy! Eso no lo sé. ¿Te paso con alguien del equipo?";
    const put = await app.request("/api/texts/es", {
      method: "PUT",
      json: { texts: { "agent.no_answer": own } },
      headers: { authorization: `Bearer ${members}` },
    });
    expect(put.status).toBe(200);
    const spanish = await chatJson(app, org, { message: "¿Puedo pagar mi suscripción con criptomonedas desde Venezuela?", user_id: "es-3" });
    expect(spanish.text).toBe(own);
    const english = await chatJson(app, org, { message: "Can I pay my subscription with cryptocurrency from Venezuela?", user_id: "en-3" });
    expect(english.text).toStartWith("I'm sorry, I couldn't find an answer");
  });
});

describe("with a model", () => {
  let fake: FakeLlm;
  let modelApp: TestApp;
  let modelOrg: ChatOrg;
  beforeAll(async () => {
    fake = await fakeOpenAi();
    modelApp = await createTestApp({ LLM_PROVIDER: "openai", LLM_MODEL: "gpt-fake", LLM_API_KEY: "sk-test", LLM_BASE_URL: fake.baseUrl });
    modelOrg = await seedChatOrg(modelApp);
  }, 90_000);
  afterAll(async () => {
    await modelApp.close();
    await fake.close();
  });

  test("the system prompt names the customer's language and says to answer in it whatever the passages' language", async () => {
    fake.enqueue({ steps: [{ text: "Abre la página de inicio de sesión y elige «Olvidé mi contraseña»." }] });
    const answer = await chatJson(modelApp, modelOrg, { message: "¿Cómo restablezco mi contraseña?", user_id: "es-model" });
    expect(answer.text).toStartWith("Abre la página");
    const system = JSON.stringify(fake.requests[0]!.body.messages[0]);
    expect(system).toContain('Answer in Spanish (language code \\"es\\")');
    expect(system).toContain("even when the help articles or tool results you are given are in another language");
  });

  test("a model that fails: the fallback offering a person is in the customer's language", async () => {
    fake.enqueue({ status: 400 });
    const answer = await chatJson(modelApp, modelOrg, { message: "Wie setze ich mein Passwort zurück?", user_id: "de-model" });
    expect(answer.text).toBe(CATALOGUES.de!["agent.unavailable"]);
  });
});
