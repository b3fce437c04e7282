// The customer's language on tickets (README "Languages"): members see it in the list and on the
// ticket page, and filter the list by it (API and dashboard).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTicket } from "../../src/inbox/tickets.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { type InboxOrg, seedInboxOrg } from "./helpers.ts";

let app: TestApp;
let org: InboxOrg;
let auth: Record<string, string>;
const numbers: Record<string, number> = {};

beforeAll(async () => {
  app = await createTestApp();
  org = await seedInboxOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  for (const [subject, language] of [
    ["Contraseña", "es"],
    ["Passwort", "de"],
    ["Unknown", null],
  ] as const) {
    const ticket = await createTicket(app.deps, {
      orgId: org.org_id,
      actor: { kind: "member", memberId: org.admin_id },
      input: { subject, message: subject, source: "api", language },
    });
    numbers[subject] = ticket.number;
  }
}, 90_000);
afterAll(() => app.close());

test("the API lists each ticket's language and filters by it; a malformed language is a 400", async () => {
  const all = (await (await app.request("/api/tickets", { headers: auth })).json()) as any;
  expect(Object.fromEntries(all.tickets.map((t: any) => [t.subject, t.language]))).toEqual({ Contraseña: "es", Passwort: "de", Unknown: null });
  const spanish = (await (await app.request("/api/tickets?language=es", { headers: auth })).json()) as any;
  expect(spanish.tickets.map((t: any) => t.subject)).toEqual(["Contraseña"]);
  expect((await app.request("/api/tickets?language=Spanish", { headers: auth })).status).toBe(400);
});

test("the dashboard's inbox shows the language and filters by it; the ticket page names it", async () => {
  const res = await app.request("/signin", {
    form: { email: org.admin_email, password: org.password, return_to: "/dashboard" },
    headers: { origin: app.deps.config.baseUrl },
  });
  const cookie = { cookie: res.headers.get("set-cookie")!.split(";")[0]! };
  const list = await (await app.request("/dashboard/inbox?language=de", { headers: cookie })).text();
  expect(list).toContain('<span lang="de">German</span>');
  expect(list).toContain("Passwort");
  expect(list).not.toContain("Contraseña");
  const page = await (await app.request(`/dashboard/inbox/${numbers.Contraseña}`, { headers: cookie })).text();
  expect(page).toContain('language: <span lang="es">Spanish</span>');
});
