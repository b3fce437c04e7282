// The knowledge base: /api/docs (roles, tenant boundary, limits at their boundary) and search
// that finds natural-language questions.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { memberships } from "../../src/db/schema/index.ts";
import { DOC_LIMITS } from "../../src/knowledge/docs.ts";
import { searchIndex } from "../../src/knowledge/tools.ts";
import { snippetText } from "../../src/knowledge/passages.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let auth: Record<string, string>;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
});
afterAll(() => app.close());

const create = (json: unknown, headers = auth) => app.request("/api/docs", { json, headers });

describe("/api/docs", () => {
  test("create, read, list, update, delete", async () => {
    const res = await create({ title: "Refund policy", body: "Refunds within **30 days**.", url: "https://help.example.com/refunds", tags: ["billing"] });
    expect(res.status).toBe(201);
    const doc = (await res.json()) as { id: string; status: string; tags: string[] };
    expect(doc).toMatchObject({ status: "published", tags: ["billing"] });
    expect((await app.request(`/api/docs/${doc.id}`, { headers: auth })).status).toBe(200);
    const list = (await (await app.request("/api/docs", { headers: auth })).json()) as { docs: { id: string }[] };
    expect(list.docs.map((d) => d.id)).toContain(doc.id);
    const patched = await app.request(`/api/docs/${doc.id}`, { method: "PATCH", json: { status: "draft" }, headers: auth });
    expect(((await patched.json()) as { status: string }).status).toBe("draft");
    expect(
      ((await app.request(`/api/docs?status=published`, { headers: auth }).then((r) => r.json())) as { docs: { id: string }[] }).docs.map((d) => d.id),
    ).not.toContain(doc.id);
    expect((await app.request(`/api/docs/${doc.id}`, { method: "DELETE", headers: auth })).status).toBe(204);
    expect((await app.request(`/api/docs/${doc.id}`, { headers: auth })).status).toBe(404);
    expect((await app.request(`/api/docs/${doc.id}`, { method: "DELETE", headers: auth })).status).toBe(404);
  });

  test(`limits: a title of ${DOC_LIMITS.title} characters passes, ${DOC_LIMITS.title + 1} is 400; body of ${DOC_LIMITS.body} passes, one more is 400`, async () => {
    expect((await create({ title: "t".repeat(DOC_LIMITS.title), body: "b" })).status).toBe(201);
    const long = await create({ title: "t".repeat(DOC_LIMITS.title + 1), body: "b" });
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe("/title");
    expect((await create({ title: "big", body: "b".repeat(DOC_LIMITS.body) })).status).toBe(201);
    expect((await create({ title: "big", body: "b".repeat(DOC_LIMITS.body + 1) })).status).toBe(400);
    expect((await create({ title: "x", body: "y", url: "javascript:alert(1)" })).status).toBe(400);
    expect((await create({ title: "x", body: "y", status: "archived" })).status).toBe(400);
    // Unknown fields are dropped (Elysia normalises bodies to the schema), never stored.
    const extra = await create({ title: "x", body: "y", extra: 1 });
    expect(extra.status).toBe(201);
    expect(await extra.json()).not.toHaveProperty("extra");
  });

  test("another org's document is 404; roles are enforced", async () => {
    const other = await seedOrg(app);
    const otherAuth = { authorization: `Bearer ${await signIn(app, other.admin_email, other.password)}` };
    const mine = (await (await create({ title: "Mine", body: "secret" })).json()) as { id: string };
    expect((await app.request(`/api/docs/${mine.id}`, { headers: otherAuth })).status).toBe(404);
    expect((await app.request(`/api/docs/${mine.id}`, { method: "PATCH", json: { title: "Theirs" }, headers: otherAuth })).status).toBe(404);
    expect((await app.request(`/api/docs/${mine.id}`, { method: "DELETE", headers: otherAuth })).status).toBe(404);
    expect(((await app.request(`/api/docs/${mine.id}`, { headers: auth }).then((r) => r.json())) as { title: string }).title).toBe("Mine");

    await app.deps.db
      .update(memberships)
      .set({ roles: ["knowledge:view"] })
      .where(eq(memberships.orgId, other.org_id));
    expect((await app.request("/api/docs", { headers: otherAuth })).status).toBe(200);
    expect((await create({ title: "x", body: "y" }, otherAuth)).status).toBe(403);
    expect((await app.request("/api/docs")).status).toBe(401);
  });
});

describe("search", () => {
  test("natural-language questions find documents that contain most of their words, best first", async () => {
    const o = await seedOrg(app);
    const h = { authorization: `Bearer ${await signIn(app, o.admin_email, o.password)}` };
    for (const [title, body] of [
      ["Changing your billing address", "To change the billing address on invoices, open Billing settings and edit the address."],
      ["Exporting invoices", "Invoices can be exported as PDF from the Billing page."],
      ["Two-factor authentication", "Enable two-factor authentication under Security."],
    ])
      await create({ title, body }, h);
    // An all-words AND query would find nothing: "how", "can", "i", "my" … are not all in any document.
    const hits = await searchIndex(app.deps, o.org_id, "How can I change my billing address on the invoices?", 5);
    expect(hits.map((h) => h.title)).toEqual(["Changing your billing address", "Exporting invoices"]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits[0]!.snippet).toContain("**");
    expect(await searchIndex(app.deps, o.org_id, "the and of", 5)).toEqual([]);
    // Other orgs' documents never appear.
    expect(await searchIndex(app.deps, org.org_id, "billing address", 5)).toEqual([]);
  });

  test("a word in the title outranks the same word in the body; more of the question's words outrank fewer", async () => {
    const o = await seedOrg(app);
    const h = { authorization: `Bearer ${await signIn(app, o.admin_email, o.password)}` };
    for (const [title, body] of [
      ["Notes", "Parcel lockers are available in every city."],
      ["Parcel lockers", "Available in every city."],
      ["Delivery", "Parcel lockers hold a parcel for three days; pickup codes arrive by text message."],
    ])
      await create({ title, body }, h);
    const byTitle = await searchIndex(app.deps, o.org_id, "lockers", 5);
    expect(byTitle[0]!.title).toBe("Parcel lockers");
    const byWords = await searchIndex(app.deps, o.org_id, "How long do parcel lockers hold a parcel, and how do pickup codes arrive?", 5);
    // A long question still gives distinct, non-zero scores.
    const long = `${Array.from({ length: 400 }, (_, i) => `w${i}`).join(" ")} lockers parcel`;
    const scores = (await searchIndex(app.deps, o.org_id, long.slice(-2000), 5)).map((hit) => hit.score);
    expect(scores).toHaveLength(3);
    expect(scores[0]!).toBeGreaterThan(scores[1]!);
    expect(scores[1]!).toBeGreaterThan(scores[2]!);
    expect(scores[2]!).toBeGreaterThan(0);
    // Both match in the body only: the one holding more of the question's words ranks higher.
    const titles = byWords.map((hit) => hit.title);
    expect(titles.indexOf("Delivery")).toBeLessThan(titles.indexOf("Notes"));
    expect(titles).toContain("Notes");
  });

  test("highlight markers never land inside the body's markdown emphasis (****Reset**)", async () => {
    const o = await seedOrg(app);
    await create(
      {
        title: "Passwords",
        body: "**Reset** your password from the *reset* page, or __reset__ it by e-mail. Variables like reset_token and 2 * 3 stay as they are.",
      },
      { authorization: `Bearer ${await signIn(app, o.admin_email, o.password)}` },
    );
    const [hit] = await searchIndex(app.deps, o.org_id, "reset", 5);
    expect(hit!.snippet).not.toContain("***");
    expect(hit!.snippet).toStartWith("**Reset** your password from the **reset** page, or **reset** it by e-mail.");
    expect(hit!.snippet).toContain("_token"); // intraword underscore: not emphasis
    expect(hit!.snippet).toContain("2 * 3");
  });

  test("snippetText: the body's emphasis is dropped, the match marks become **", () => {
    expect(snippetText("**\uE000Reset\uE001** it")).toBe("**Reset** it");
    expect(snippetText("a **bold** and *em* word, snake_case, * bullet")).toBe("a bold and em word, snake_case, * bullet");
    expect(snippetText("***\uE000x\uE001***")).toBe("**x**");
    expect(snippetText("\uE000reset\uE001_token and *\uE000reset\uE001*")).toBe("**reset**_token and **reset**");
  });
});
