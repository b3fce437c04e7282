// The org's synonyms for knowledge search: GET/PUT /api/knowledge/synonyms (roles, tenant boundary,
// limits at their boundary) and their effect on the next chat question; the dashboard page.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { memberships } from "../../src/db/schema/index.ts";
import { SYNONYM_LIMITS } from "../../src/knowledge/synonyms.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let auth: { authorization: string };

beforeAll(async () => {
  app = await createTestApp({ LLM_PROVIDER: "builtin" });
  org = await seedOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
}, 60_000);
afterAll(() => app.close());

const put = (synonyms: unknown, headers = auth) => app.request("/api/knowledge/synonyms", { method: "PUT", headers, json: { synonyms } });
const ask = async (message: string) =>
  (
    (await (await app.request("/api/sdk/chat", { method: "POST", headers: { authorization: `Bearer ${org.widget_key}` }, json: { message } })).json()) as {
      sources: { doc_id: string }[];
    }
  ).sources.map((s) => s.doc_id);

describe("synonyms", () => {
  test("a question using a synonym finds the article using the other word, from the next question on", async () => {
    const created = await app.request("/api/docs", {
      method: "POST",
      headers: auth,
      json: { title: "Refund policy", body: "## Refunds\nRefunds are paid to the original card within 10 days." },
    });
    const id = ((await created.json()) as { id: string }).id;
    await app.request("/api/docs", { method: "POST", headers: auth, json: { title: "Shipping", body: "## Delivery\nParcels arrive within 3 days." } });
    expect(await ask("How do I get my money back?")).not.toContain(id);
    const saved = await put([
      ["refund", "money back"],
      [" Parcel ", "package", "parcel"],
    ]);
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as { synonyms: string[][] }).synonyms).toEqual([
      ["refund", "money back"],
      ["parcel", "package"],
    ]);
    expect((await ask("How do I get my money back?"))[0]).toBe(id);
    const read = (await (await app.request("/api/knowledge/synonyms", { headers: auth })).json()) as { synonyms: string[][]; updated_at: string };
    expect(read.synonyms).toEqual([
      ["refund", "money back"],
      ["parcel", "package"],
    ]);
    expect(read.updated_at).toBeString();
    expect((await put([])).status).toBe(200);
    expect(await ask("How do I get my money back?")).not.toContain(id);
  });

  test("limits at their boundary and bad input are 400 naming the place", async () => {
    const groups = (n: number) => Array.from({ length: n }, (_, i) => [`word${i}a`, `word${i}b`]);
    expect((await put(groups(SYNONYM_LIMITS.groups))).status).toBe(200);
    expect((await put(groups(SYNONYM_LIMITS.groups + 1))).status).toBe(400);
    const entries = (n: number) => [Array.from({ length: n }, (_, i) => `term${i}`)];
    expect((await put(entries(SYNONYM_LIMITS.perGroup))).status).toBe(200);
    expect((await put(entries(SYNONYM_LIMITS.perGroup + 1))).status).toBe(400);
    expect((await put([["short", "x".repeat(SYNONYM_LIMITS.chars)]])).status).toBe(200);
    expect((await put([["short", "x".repeat(SYNONYM_LIMITS.chars + 1)]])).status).toBe(400);
    for (const bad of [[["alone"]], [["same", "same"]], [["refund", "the"]], [["one", "two three four"]]]) {
      const res = await put(bad);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { details: { path: string }[] } };
      expect(body.error.details[0]!.path).toStartWith("/synonyms/0");
    }
    expect((await app.request("/api/knowledge/synonyms", { method: "PUT", headers: auth, json: { synonyms: "refund" } })).status).toBe(400);
  });

  test("roles and the tenant boundary", async () => {
    const other = await seedOrg(app);
    const otherAuth = { authorization: `Bearer ${await signIn(app, other.admin_email, other.password)}` };
    expect((await put([["refund", "money back"]])).status).toBe(200);
    expect(((await (await app.request("/api/knowledge/synonyms", { headers: otherAuth })).json()) as { synonyms: unknown[] }).synonyms).toEqual([]);
    await app.deps.db
      .update(memberships)
      .set({ roles: ["knowledge:view"] })
      .where(eq(memberships.orgId, other.org_id));
    expect((await app.request("/api/knowledge/synonyms", { headers: otherAuth })).status).toBe(200);
    expect((await put([["a1", "b1"]], otherAuth)).status).toBe(403);
    expect((await app.request("/api/knowledge/synonyms")).status).toBe(401);
  });

  test("the dashboard page shows and saves them, one group per line, naming the line of a mistake", async () => {
    const page = await app.request("/dashboard/knowledge/synonyms", { headers: auth });
    expect(page.status).toBe(200);
    const saved = await app.request("/dashboard/knowledge/synonyms", { method: "POST", headers: auth, form: { synonyms: "invoice, bill\nlogin, sign in" } });
    expect(saved.status).toBe(303);
    const read = (await (await app.request("/api/knowledge/synonyms", { headers: auth })).json()) as { synonyms: string[][] };
    expect(read.synonyms).toEqual([
      ["invoice", "bill"],
      ["login", "sign in"],
    ]);
    const wrong = await app.request("/dashboard/knowledge/synonyms", { method: "POST", headers: auth, form: { synonyms: "invoice, bill\nalone" } });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("Line 2");
  });
});
