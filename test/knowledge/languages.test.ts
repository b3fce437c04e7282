// Knowledge in the customer's language (docs/decisions.md "Text analysis per language"): a
// document's language from its writer (`language` on POST/PATCH /api/docs) or detected when
// written; questions asked through POST /api/sdk/chat (builtin provider) read with their language's
// analyzer, and a help centre in two languages answering from the page in the customer's.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { NO_ANSWER } from "../../src/agents/llm/builtin.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { chatJson } from "../support/chat.ts";

const ES_RESET = {
  title: "Restablecer la contraseña",
  body: "Si olvidaste tu contraseña, abre la página de inicio de sesión y elige «¿Olvidaste tu contraseña?». Te enviamos un enlace para restablecerla que es válido durante 30 minutos.",
};
const JA_RESET = {
  title: "パスワードのリセット",
  body: "パスワードを忘れた場合は、サインインページを開いて「パスワードをお忘れですか」を選択してください。リセット用のリンクをメールでお送りします。リンクは30分間有効です。",
};
const EN_RESET = {
  title: "Reset your password",
  body: "If you forgot your password, open the sign-in page and choose Forgot password. We email you a reset link that stays valid for 30 minutes.",
};
const EN_BILLING = {
  title: "Invoices and billing",
  body: "Invoices are emailed on the first day of each month. Download past invoices from Settings, then Billing.",
};
const ES_BILLING = {
  title: "Facturas y pagos",
  body: "Las facturas se envían por correo el primer día de cada mes. Descarga las facturas anteriores desde Ajustes y luego Facturación.",
};

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 30_000);
afterAll(() => app.close());

async function orgWith(docs: Record<string, unknown>[]) {
  const org = await seedOrg(app);
  const headers = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  const ids: string[] = [];
  for (const doc of docs) {
    const res = await app.request("/api/docs", { json: doc, headers });
    expect(res.status).toBe(201);
    ids.push(((await res.json()) as { id: string }).id);
  }
  return { org, headers, ids };
}

describe("a document's language", () => {
  test("given by its writer as a BCP 47 tag, kept as its primary subtag; detected when absent; null asks for detection again", async () => {
    const { headers, ids } = await orgWith([{ ...ES_RESET, language: "es-MX" }, ES_BILLING, { ...EN_RESET, language: "de" }]);
    const read = async (id: string) => (await (await app.request(`/api/docs/${id}`, { headers })).json()) as { language?: string };
    expect((await read(ids[0]!)).language).toBe("es");
    expect((await read(ids[1]!)).language).toBe("es");
    expect((await read(ids[2]!)).language).toBe("de");
    const patched = await app.request(`/api/docs/${ids[2]}`, { method: "PATCH", json: { language: null }, headers });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { language?: string }).language).toBe("en");
    const set = await app.request(`/api/docs/${ids[2]}`, { method: "PATCH", json: { language: "pt-BR" }, headers });
    expect(((await set.json()) as { language?: string }).language).toBe("pt");
  });

  test("a tag that is not one is refused with a 400 naming the field; the length is bounded at 35", async () => {
    const { headers } = await orgWith([]);
    const bad = await app.request("/api/docs", { json: { ...EN_RESET, language: "not a tag!" }, headers });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("/language");
    // 35 characters: a valid tag at the limit is accepted; 36 is refused by the schema.
    const atLimit = "es-419-u-ca-gregory-nu-latn-x-abcde";
    expect(atLimit.length).toBe(35);
    const accepted = await app.request("/api/docs", { json: { ...EN_RESET, language: atLimit }, headers });
    expect(accepted.status).toBe(201);
    expect(((await accepted.json()) as { language?: string }).language).toBe("es");
    expect((await app.request("/api/docs", { json: { ...EN_RESET, language: `${atLimit}f` }, headers })).status).toBe(400);
    expect((await app.request("/api/docs", { json: { ...EN_RESET, language: "" }, headers })).status).toBe(400);
    expect((await app.request("/api/docs", { json: { ...EN_RESET, language: 7 }, headers })).status).toBe(400);
  });
});

describe("questions in the customer's language (POST /api/sdk/chat, builtin provider)", () => {
  test("a Spanish question finds the Spanish reset-password page and is answered, not refused", async () => {
    const { org, ids } = await orgWith([ES_RESET, ES_BILLING]);
    const answer = await chatJson(app, org, { message: "¿Cómo restablezco mi contraseña?" });
    expect(answer.sources[0].doc_id).toBe(ids[0]);
    expect(answer.confidence).toBeGreaterThanOrEqual(0.5);
    expect(answer.text).not.toBe(NO_ANSWER);
    expect(answer.text).toContain("30 minutos");
  });

  test("a Japanese question finds the Japanese page", async () => {
    const { org, ids } = await orgWith([
      JA_RESET,
      { title: "請求書", body: "請求書は毎月1日にメールで送信されます。過去の請求書は設定の請求から ダウンロードできます。" },
    ]);
    const answer = await chatJson(app, org, { message: "パスワードをリセットするにはどうすればいいですか？" });
    expect(answer.sources[0].doc_id).toBe(ids[0]);
    expect(answer.confidence).toBeGreaterThanOrEqual(0.5);
    expect(answer.text).toContain("30分間");
  });

  test("a help centre in two languages answers from the page in the customer's language", async () => {
    const { org, ids } = await orgWith([EN_RESET, ES_RESET, EN_BILLING, ES_BILLING]);
    const spanish = await chatJson(app, org, { message: "¿Cómo restablezco mi contraseña?" });
    expect(spanish.sources[0].doc_id).toBe(ids[1]);
    const english = await chatJson(app, org, { message: "How do I reset my password?" });
    expect(english.sources[0].doc_id).toBe(ids[0]);
    // Both pages hold "30": the number alone does not pull the customer to the other language's page.
    const invoices = await chatJson(app, org, { message: "¿Cuándo se envían las facturas?" });
    expect(invoices.sources[0].doc_id).toBe(ids[3]);
  });
});
