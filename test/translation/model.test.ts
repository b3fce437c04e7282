// Translation by the org's model over the Anthropic Messages wire format (a loopback fake): the
// instructions name both languages, the text goes as the user's turn, and only a whole answer is a
// translation — one cut by the token limit, a failed stream or a refusal is an error; the builtin
// model cannot translate (409). The OpenAI-compatible wire is in inbox.test.ts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { AppError } from "../../src/errors.ts";
import { setTranslation, translatorFor } from "../../src/translation/settings.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { fakeAnthropic, type FakeLlm } from "../support/fake-llm.ts";
import { appErrorOf } from "../support/errors.ts";
import { seedInboxOrg } from "../inbox/helpers.ts";

let app: TestApp;
let fake: FakeLlm;
beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development" });
  fake = await fakeAnthropic();
}, 60_000);
afterAll(async () => {
  await fake.close();
  await app.close();
});

test("an Anthropic model translates; a cut answer, a broken stream and a refusal are errors, never half a text", async () => {
  const org = await seedInboxOrg(app);
  const auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  const llm = await app.request("/api/llm", {
    method: "PUT",
    headers: auth,
    json: { provider: "anthropic", base_url: fake.baseUrl, model: "claude-test", api_key: "sk-ant-test" },
  });
  expect(llm.status).toBe(200);
  await setTranslation(app.deps, org.org_id, { kind: "member", memberId: org.admin_id }, { provider: "model" });
  const translator = (await translatorFor(app.deps, org.org_id))!;
  expect(translator.provider).toBe("model");

  fake.enqueue({ steps: [{ text: "Hola, " }, { text: "¿en qué puedo ayudarle?" }] });
  expect(await translator.translate({ text: "Hello, how can I help?", from: "en", to: "es" })).toBe("Hola, ¿en qué puedo ayudarle?");
  const request = fake.requests.at(-1)!;
  expect(request.path).toBe("/v1/messages");
  expect(request.headers["x-api-key"]).toBe("sk-ant-test");
  expect(request.body.system).toContain("from English into Spanish (es)");
  expect(request.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Hello, how can I help?" }] }]);
  expect(request.body.tools).toBeUndefined();

  fake.enqueue({ steps: [{ text: "Hola, ¿en qué" }], stop: "max_tokens" });
  const cut = await appErrorOf(translator.translate({ text: "Hello, how can I help?", from: "en", to: "es" }));
  expect([cut.status, cut.code]).toEqual([502, "translation_failed"]);
  expect(cut.message).toContain("cut short");

  fake.enqueue({ steps: [{ text: "Hola" }], end: "no-terminator" });
  const broken = await appErrorOf(translator.translate({ text: "Hello", from: "en", to: "es" }));
  expect(broken.code).toBe("translation_failed");

  fake.enqueue({ status: 401 });
  const refused = await appErrorOf(translator.translate({ text: "Hello", from: "en", to: "es" }));
  expect(refused.code).toBe("translation_failed");
  expect(refused.message).toMatch(/the model refused: .*401/);
});

test("the builtin model cannot translate: 409 translation_unavailable, saying what to do", async () => {
  const org = await seedOrg(app);
  const [admin] = await app.deps.db.query.members.findMany({ where: (m, { eq }) => eq(m.email, org.admin_email) });
  await setTranslation(app.deps, org.org_id, { kind: "member", memberId: admin!.id }, { provider: "model" });
  const error = await appErrorOf(translatorFor(app.deps, org.org_id));
  expect(error).toBeInstanceOf(AppError);
  expect([error.status, error.code]).toEqual([409, "translation_unavailable"]);
  expect(error.message).toContain("builtin");
});
