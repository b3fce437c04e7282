// GET /api/knowledge/gaps catches what matters (README "Knowledge gaps"): answers below the
// threshold, answers the customer marked not helpful, answers a hand-off followed; each group
// counts them by reason and links the conversations behind it, the org's own only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { conversationMessages } from "../../src/db/schema/index.ts";
import { adminOf, get, type Member } from "../dashboard/helpers.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { GAPS } from "../../src/knowledge/gaps.ts";
import { askGapQuestions } from "./gaps-seed.ts";

interface Gap {
  terms: string[];
  count: number;
  by_reason: Record<string, number>;
  questions: string[];
  conversations: { id: string; url: string; asked_at: string; reasons: string[] }[];
  write_article_url: string;
}

let app: TestApp;
let admin: Member;
let other: Member;
let auth: { authorization: string };
let list: Gap[];

beforeAll(async () => {
  app = await createTestApp({ LLM_PROVIDER: "builtin" });
  admin = await adminOf(app);
  other = await adminOf(app);
  auth = { authorization: `Bearer ${await signIn(app, admin.email, admin.password)}` };
  await askGapQuestions(app, auth, admin.widgetKey!);
  // The other org asks the same questions: none of its conversations may show in the first's gaps.
  await askGapQuestions(app, { authorization: `Bearer ${await signIn(app, other.email, other.password)}` }, other.widgetKey!);
  const res = await app.request("/api/knowledge/gaps", { headers: auth });
  expect(res.status).toBe(200);
  list = ((await res.json()) as { gaps: Gap[] }).gaps;
}, 90_000);
afterAll(() => app.close());

const groupOf = (question: string) => list.find((g) => g.questions.includes(question));
const conversationOf = async (id: string) => {
  const [m] = await app.deps.db
    .select({ text: conversationMessages.text })
    .from(conversationMessages)
    .where(and(eq(conversationMessages.conversationId, id), eq(conversationMessages.role, "customer")))
    .orderBy(conversationMessages.createdAt, conversationMessages.id)
    .limit(1);
  return m?.text;
};

describe("knowledge gaps by reason", () => {
  test("an answer marked not helpful is a gap; one marked helpful is not", () => {
    const g = groupOf("How do I reset my password?");
    expect(g).toBeDefined();
    expect(g!.count).toBe(1);
    expect(g!.by_reason).toEqual({ low_confidence: 0, not_helpful: 1, handed_off: 0, boilerplate: 0 });
    expect(g!.conversations.map((c) => c.reasons)).toEqual([["not_helpful"]]);
    expect(list.flatMap((x) => x.questions)).not.toContain("How can I reset my password?");
  });

  test("an answer the customer asked for a person right after is a gap; the request itself is not a question", () => {
    const g = groupOf("How do I change my delivery address?");
    expect(g).toBeDefined();
    expect(g!.by_reason).toEqual({ low_confidence: 0, not_helpful: 0, handed_off: 1, boilerplate: 0 });
    expect(list.flatMap((x) => x.questions)).not.toContain("I want to talk to a human");
  });

  test("low confidence, alone and with a No, counted per reason", () => {
    const g = groupOf("Do you have an office in Tokyo?");
    expect(g).toBeDefined();
    expect(g!.count).toBe(2);
    expect(g!.by_reason).toEqual({ low_confidence: 2, not_helpful: 1, handed_off: 0, boilerplate: 0 });
    expect(g!.conversations.map((c) => c.reasons).sort()).toEqual([["low_confidence"], ["low_confidence", "not_helpful"]]);
    expect(g!.write_article_url).toStartWith("/dashboard/knowledge/new?title=");
    expect(list).toHaveLength(3);
  });

  test("each conversation link opens that conversation, for this org only", async () => {
    for (const g of list)
      for (const c of g.conversations) {
        expect(c.url).toBe(`/dashboard/conversations/${c.id}`);
        expect(g.questions).toContain((await conversationOf(c.id))!);
        const page = await get(app, admin, c.url);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain((await conversationOf(c.id))!);
        expect((await get(app, other, c.url)).status).toBe(404);
      }
    expect(list.flatMap((g) => g.conversations)).toHaveLength(4);
  });
});

describe("conversations linked per group", () => {
  test(`at most ${GAPS.conversations}, the newest, while the count goes on`, async () => {
    const third = await adminOf(app);
    const key = { authorization: `Bearer ${third.widgetKey!}` };
    const own = { authorization: `Bearer ${await signIn(app, third.email, third.password)}` };
    const groups = async () => ((await (await app.request("/api/knowledge/gaps", { headers: own })).json()) as { gaps: Gap[] }).gaps;
    const ask = async () => {
      const res = await app.request("/api/sdk/chat", { method: "POST", headers: key, json: { message: "Do you have an office in Tokyo?" } });
      expect(((await res.json()) as { confidence: number }).confidence).toBeLessThan(GAPS.below);
    };
    for (let i = 0; i < GAPS.conversations; i++) await ask();
    const [full] = await groups();
    expect(full!.count).toBe(GAPS.conversations);
    expect(full!.conversations).toHaveLength(GAPS.conversations);
    await ask();
    const [over] = await groups();
    expect(over!.count).toBe(GAPS.conversations + 1);
    expect(over!.conversations).toHaveLength(GAPS.conversations);
    // Newest first: the new conversation leads, and the first one asked is the one left out.
    const before = full!.conversations.map((c) => c.id);
    const after = over!.conversations.map((c) => c.id);
    expect(before).not.toContain(after[0]!);
    expect(after.slice(1)).toEqual(before.slice(0, -1));
  }, 60_000);
});
