// Dashboard "Languages" settings (README "Languages"): the sentences of one language, the org's
// own wording saved through the same check as PUT /api/texts (a bad message is shown on its field),
// and read by the widget's config at once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, post } from "./helpers.ts";

let app: TestApp;
let admin: Member;
beforeAll(async () => {
  app = await createTestApp();
  admin = await adminOf(app, "Texts Org");
}, 90_000);
afterAll(() => app.close());

test("a language's sentences, saved and refused field by field, reaching the widget", async () => {
  const page = await (await get(app, admin, "/dashboard/settings/texts?language=es")).text();
  expect(page).toContain('name="widget.placeholder"');
  expect(page).toContain('<option value="es" selected>Spanish</option>');
  const refused = await post(app, admin, "/dashboard/settings/texts?language=es", { "widget.placeholder": "Pregunta {algo" });
  expect(refused.status).toBe(400);
  expect(await refused.text()).toContain("s not a valid ICU message");
  const saved = await post(app, admin, "/dashboard/settings/texts?language=es", { "widget.placeholder": "Escribe tu duda…" });
  expect(saved.status).toBe(303);
  const config = (await (await app.request(`/api/sdk/config?org_id=${admin.orgId}&locale=es`)).json()) as any;
  expect(config.texts["widget.placeholder"]).toBe("Escribe tu duda…");
  // The catalogue's own wording, or an empty field, removes the override.
  expect((await post(app, admin, "/dashboard/settings/texts?language=es", { "widget.placeholder": "" })).status).toBe(303);
  const again = (await (await app.request(`/api/sdk/config?org_id=${admin.orgId}&locale=es`)).json()) as any;
  expect(again.texts["widget.placeholder"]).toBe("Haz una pregunta…");
});
