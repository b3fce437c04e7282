// GET /api/knowledge/gaps: questions the agent could not answer with confidence (escalated ones
// included), grouped with their near-duplicates, with counts and a pre-filled "write an article" link.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { memberships } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let auth: { authorization: string };

const chat = async (body: Record<string, unknown>) =>
  (await (await app.request("/api/sdk/chat", { method: "POST", headers: { authorization: `Bearer ${org.widget_key}` }, json: body })).json()) as {
    session_id: string;
    confidence: number;
    actions: { type: string; reason?: string }[];
  };
const gaps = (query = "", headers = auth) => app.request(`/api/knowledge/gaps${query}`, { headers });

beforeAll(async () => {
  app = await createTestApp({ LLM_PROVIDER: "builtin" });
  org = await seedOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  await app.request("/api/docs", {
    method: "POST",
    headers: auth,
    json: { title: "Resetting your password", body: "## Reset\nChoose Forgot password on the sign-in page." },
  });
}, 60_000);
afterAll(() => app.close());

describe("knowledge gaps", () => {
  test("a question escalated for low confidence is listed, grouped with its near-duplicates, most asked first", async () => {
    const first = await chat({ message: "Do you have an office in Tokyo?" });
    expect(first.confidence).toBeLessThan(0.5);
    // Asked again in the same session: low twice in a row, so the agent opens a ticket.
    const again = await chat({ message: "Where is your Tokyo office?", session_id: first.session_id });
    expect(again.actions.some((a) => a.type === "ticket_created" && a.reason === "escalation")).toBe(true);
    await chat({ message: "Is the Tokyo office open on Saturdays?" });
    await chat({ message: "Can I pay with bitcoin?" });
    await chat({ message: "How do I reset my password?" }); // answered: not a gap
    await chat({ message: "hello" }); // no content: not a gap

    const res = await gaps();
    expect(res.status).toBe(200);
    const list = (
      (await res.json()) as {
        gaps: { terms: string[]; count: number; by_reason: Record<string, number>; questions: string[]; write_article_url: string; last_asked_at: string }[];
      }
    ).gaps;
    expect(list.map((g) => g.count)).toEqual([3, 1]);
    expect(list[0]!.terms).toContain("tokyo");
    // The first Tokyo answer was followed by the escalation's ticket: handed off as well as low.
    expect(list[0]!.by_reason).toEqual({ low_confidence: 3, not_helpful: 0, handed_off: 1, boilerplate: 0 });
    expect(list[0]!.questions.sort()).toEqual(["Do you have an office in Tokyo?", "Is the Tokyo office open on Saturdays?", "Where is your Tokyo office?"]);
    expect(list[1]!.questions).toEqual(["Can I pay with bitcoin?"]);
    expect(list.flatMap((g) => g.questions)).not.toContain("How do I reset my password?");
    const link = list[1]!.write_article_url;
    expect(link).toBe(`/dashboard/knowledge/new?title=${encodeURIComponent("Can I pay with bitcoin?")}`);
    const page = await app.request(link, { headers: auth });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('value="Can I pay with bitcoin?"');
  });

  test("limits at their boundary; roles", async () => {
    expect((await gaps("?days=365&limit=100")).status).toBe(200);
    expect((await gaps("?days=366")).status).toBe(400);
    const zero = await gaps("?days=0");
    expect(zero.status).toBe(400);
    // The message names where the problem is: a query parameter, not the body.
    const zeroBody = (await zero.json()) as { error: { code: string; message: string; details: { path: string }[] } };
    expect(zeroBody.error.code).toBe("validation_failed");
    expect(zeroBody.error.message).toBe("The request query is invalid.");
    expect(zeroBody.error.details[0]!.path).toBe("/days");
    expect((await gaps("?limit=101")).status).toBe(400);
    expect(((await (await gaps("?limit=1")).json()) as { gaps: unknown[] }).gaps).toHaveLength(1);
    const other = await seedOrg(app);
    const otherAuth = { authorization: `Bearer ${await signIn(app, other.admin_email, other.password)}` };
    expect(((await (await gaps("", otherAuth)).json()) as { gaps: unknown[] }).gaps).toEqual([]);
    await app.deps.db
      .update(memberships)
      .set({ roles: ["knowledge:manage"] })
      .where(eq(memberships.orgId, other.org_id));
    expect((await gaps("", otherAuth)).status).toBe(403);
    expect((await app.request("/api/knowledge/gaps")).status).toBe(401);
  });
});
