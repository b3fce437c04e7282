// The `search_docs` tool asks the same in-memory index, with the same query, as chat retrieval:
// for the same words the tool's first result is the chat's first source, typos and written-together
// variants included, and an edit is seen by the next call. Its result keeps its shape.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallScope } from "../../src/tools/runtime.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let member: string;
const ids: Record<string, string> = {};

const PAGES = {
  passport: {
    title: "Renew a passport",
    body: "## Who can renew\nAdults whose last passport was issued in the past 15 years can renew by mail.\n\n## Processing times\nRoutine service takes 6 to 8 weeks.",
    url: "https://help.example/passport",
  },
  license: {
    title: "Exchange a driver license",
    body: "## Non-citizen applicants\nA non-citizen with a foreign license must pass a road test.\n\n## Processing times\nA new license card arrives by mail within 2 weeks.",
  },
  disability: {
    title: "Disability benefits",
    body: "## Who qualifies\nWorkers who paid Social Security taxes and have a medical condition expected to last a year can get disability benefits.",
  },
};

type Hit = { id: string; title: string; url?: string; snippet: string; score: number };
const scope = (): CallScope => ({ actor: { kind: "customer", endUserId: null, sessionId: "s-1" }, orgId: org.org_id, channel: "chat" });
const search = async (query: string, limit?: number) =>
  ((await app.deps.tools.call(scope(), "search_docs", { query, ...(limit ? { limit } : {}) })).value as { results: Hit[] }).results;
async function chatFirst(message: string): Promise<string | undefined> {
  const res = await app.request("/api/sdk/chat", { method: "POST", headers: { authorization: `Bearer ${org.widget_key}` }, json: { message } });
  return ((await res.json()) as { sources: { doc_id: string }[] }).sources[0]?.doc_id;
}

beforeAll(async () => {
  app = await createTestApp({ LLM_PROVIDER: "builtin" });
  org = await seedOrg(app);
  member = await signIn(app, org.admin_email, org.password);
  for (const [name, page] of Object.entries(PAGES)) {
    const res = await app.request("/api/docs", { method: "POST", headers: { authorization: `Bearer ${member}` }, json: page });
    expect(res.status).toBe(201);
    ids[name] = ((await res.json()) as { id: string }).id;
  }
}, 60_000);
afterAll(() => app.close());

describe("search_docs", () => {
  test("the tool's first result is the chat's first source, for plain words, a typo and a written-together variant", async () => {
    for (const [question, page] of [
      ["How do I renew my passport by mail?", "passport"],
      ["Can I get disablilty benefits?", "disability"],
      ["I am a noncitizen with a foreign license", "license"],
    ] as const) {
      const results = await search(question);
      expect(results[0]?.id).toBe(ids[page]!);
      expect(await chatFirst(question)).toBe(ids[page]!);
    }
  });

  test("results keep their shape: id, title, url when the page has one, a snippet marking the words, a score; best first; limit honoured", async () => {
    const results = await search("passport processing times");
    expect(results[0]).toMatchObject({ id: ids.passport!, title: "Renew a passport", url: "https://help.example/passport" });
    expect(results[0]!.snippet).toContain("**");
    expect(typeof results[0]!.score).toBe("number");
    for (let i = 1; i < results.length; i++) expect(results[i]!.score).toBeLessThanOrEqual(results[i - 1]!.score);
    const license = results.find((r) => r.id === ids.license);
    expect(license && "url" in license).toBe(false);
    expect(await search("processing times", 1)).toHaveLength(1);
    expect(await search("the and of")).toEqual([]);
  });

  test("an edit is seen by the next call; an unpublished page is not found", async () => {
    expect(await search("hovercraft")).toEqual([]);
    const patched = await app.request(`/api/docs/${ids.disability}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${member}` },
      json: { body: "Hovercraft owners can apply too." },
    });
    expect(patched.status).toBe(200);
    expect((await search("hovercraft"))[0]?.id).toBe(ids.disability!);
    await app.request(`/api/docs/${ids.disability}`, { method: "PATCH", headers: { authorization: `Bearer ${member}` }, json: { status: "draft" } });
    expect(await search("hovercraft")).toEqual([]);
  });

  test("another org's pages are never found", async () => {
    const other = await seedOrg(app);
    const results = await app.deps.tools.call({ ...scope(), orgId: other.org_id }, "search_docs", { query: "passport" });
    expect((results.value as { results: Hit[] }).results).toEqual([]);
  });
});
