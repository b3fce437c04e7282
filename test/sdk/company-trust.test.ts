// The public widget key cannot make anyone a member of a company, nor rewrite a company, beyond
// what identity verification proves; and a company record reaches a customer's chat only for a
// verified customer, read-only. (A reviewer's attacks: join "acme" by naming it in the body, then
// read and overwrite its traits through data_* tools; rename "acme" anonymously.)
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AppError } from "../../src/errors.ts";
import type { CallScope } from "../../src/tools/runtime.ts";
import { boundCustomerOf, findEndUser, identifyEndUser } from "../../src/customers/records.ts";
import { findCompany, identifyCompany } from "../../src/customers/company-records.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { sdk, userToken } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let call: ReturnType<typeof sdk>;
let admin: string;

const verification = (enabled: boolean) =>
  app.request("/api/widget/identity", { method: "PUT", headers: { authorization: `Bearer ${admin}` }, json: { enabled } });
const token = (claims: Record<string, unknown>) => userToken(org.identity_secret, claims, { now: app.clock.now });

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  call = sdk(app, org.widget_key);
  admin = await signIn(app, org.admin_email, org.password);
  await identifyCompany(app.deps, org.org_id, "acme", { name: "Acme", traits: { mrr: 90000 } }, true);
}, 30_000);
afterAll(() => app.close());

describe("verification on", () => {
  beforeAll(async () => expect((await verification(true)).status).toBe(200));

  test("a verified user whose token names no company does not join the company named in the body", async () => {
    const res = await call("/api/sdk/users/identify", { user_id: "mallory", user_token: await token({ user_id: "mallory" }), company_id: "acme" });
    expect(res.status).toBe(200);
    expect((await res.json()).company ?? null).toBeNull();
    expect((await findEndUser(app.deps, org.org_id, "mallory"))!.companyId).toBeNull();
  });

  test("companies/identify: anonymous, or a token without this company's claim → 403 and the company unchanged", async () => {
    for (const body of [
      { company_id: "acme", name: "Acme – suspended, sign in at evil.example" },
      { company_id: "acme", name: "Hijacked", user_id: "mallory", user_token: await token({ user_id: "mallory" }) },
      { company_id: "acme", name: "Hijacked", user_id: "mallory", user_token: await token({ user_id: "mallory", company_id: "other" }) },
    ]) {
      const res = await call("/api/sdk/companies/identify", body);
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe("company_not_verified");
    }
    expect((await findCompany(app.deps, org.org_id, "acme"))!.name).toBe("Acme");
  });

  test("a refused companies/identify writes nothing, not even the user it named", async () => {
    const res = await call("/api/sdk/companies/identify", {
      company_id: "acme",
      name: "x",
      user_id: "eve-new",
      user_token: await token({ user_id: "eve-new" }),
    });
    expect(res.status).toBe(403);
    expect(await findEndUser(app.deps, org.org_id, "eve-new")).toBeNull();
  });

  test("a verified member of the company may update it and is linked to it", async () => {
    const res = await call("/api/sdk/companies/identify", {
      company_id: "acme",
      name: "Acme Inc",
      user_id: "ada",
      user_token: await token({ user_id: "ada", company_id: "acme" }),
    });
    expect(res.status).toBe(200);
    expect((await findCompany(app.deps, org.org_id, "acme"))!.name).toBe("Acme Inc");
    expect((await findEndUser(app.deps, org.org_id, "ada"))!.companyId).toBe((await findCompany(app.deps, org.org_id, "acme"))!.id);
  });
});

describe("verification off", () => {
  beforeAll(async () => expect((await verification(false)).status).toBe(200));

  test("a refused token leaves the company unwritten", async () => {
    const res = await call("/api/sdk/companies/identify", { company_id: "acme", name: "Written anyway?", user_id: "x", user_token: "garbage" });
    expect(res.status).toBe(403);
    expect((await findCompany(app.deps, org.org_id, "acme"))!.name).toBe("Acme Inc");
  });
});

describe("company records in a customer's chat", () => {
  const chat = (customer: Awaited<ReturnType<typeof identifyEndUser>>): CallScope => ({
    actor: { kind: "customer", endUserId: customer.id, sessionId: crypto.randomUUID() },
    orgId: org.org_id,
    channel: "chat",
    customer: boundCustomerOf(customer),
  });
  const refusal = (scope: CallScope, name: string, args: unknown) =>
    app.deps.tools.call(scope, name, args).then(
      () => null,
      (e: unknown) => e as AppError,
    );

  test("an unverified customer claiming the company cannot read it; a verified one reads it and neither writes it", async () => {
    const acme = (await findCompany(app.deps, org.org_id, "acme"))!;
    const claimed = await identifyEndUser(app.deps, org.org_id, "claimer", false, { companyId: acme.id });
    expect((await refusal(chat(claimed), "data_get_company", { company_id: "acme" }))?.status).toBe(403);

    const ada = (await findEndUser(app.deps, org.org_id, "ada"))!;
    const read = await app.deps.tools.call(chat(ada), "data_get_company", { company_id: "acme" });
    expect((read.value as { name: string }).name).toBe("Acme Inc");
    expect((await refusal(chat(ada), "data_update_company", { company_id: "acme", traits: { mrr: 1 } }))?.status).toBe(403);
    expect((await findCompany(app.deps, org.org_id, "acme"))!.traits).toEqual({ mrr: 90000 });
  });
});
