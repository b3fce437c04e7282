// Where sign-in sends the browser afterwards (README "Dashboard sign-in and API"): only a path that,
// after the normalisation a browser applies, starts with exactly one `/` and stays on BASE_URL's
// origin; anything else lands on /dashboard. Checked on what is redirected to, through the GET
// form's hidden field and through a POST sent directly (as a future entry point might).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { safeReturnTo } from "../../src/auth/routes.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { formReturnTo, RETURN_TO_TABLE } from "../support/hostile-values.ts";

const BASE = "http://localhost:3000";
let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  app = await createTestApp({ BASE_URL: BASE });
  org = await seedOrg(app);
});
afterAll(() => app.close());

/** A destination a browser resolves against BASE_URL without leaving it, as a single-slash path. */
function staysHome(location: string): boolean {
  return /^\/(?![/\\])/.test(location) && !/[\x00-\x1f\\]/.test(location) && new URL(location, BASE).origin === BASE;
}

describe("return_to", () => {
  test("the function: every form in the table", () => {
    const got = RETURN_TO_TABLE.map(([raw]) => [raw, safeReturnTo(raw, BASE)]);
    expect(got).toEqual(RETURN_TO_TABLE.map(([raw, want]) => [raw, want]));
  });

  test("through the GET form: the hidden field carries only the checked path", async () => {
    const got: [string, string | undefined][] = [];
    for (const [raw] of RETURN_TO_TABLE) {
      const res = await app.request(`/signin?return_to=${encodeURIComponent(raw)}`);
      expect([raw, res.status]).toEqual([raw, 200]);
      got.push([raw, formReturnTo(await res.text())]);
    }
    expect(got).toEqual(RETURN_TO_TABLE.map(([raw, want]) => [raw, want]));
  });

  test("through the POST directly: the Location is the checked path, on this origin", async () => {
    const got: [string, string | null][] = [];
    for (const [raw] of RETURN_TO_TABLE) {
      const res = await app.request("/signin", { form: { email: org.admin_email, password: org.password, return_to: raw } });
      expect([raw, res.status]).toEqual([raw, 303]);
      got.push([raw, res.headers.get("location")]);
    }
    expect(got).toEqual(RETURN_TO_TABLE.map(([raw, want]) => [raw, want]));
    expect(got.filter(([, location]) => !staysHome(location ?? ""))).toEqual([]);
  });
});
