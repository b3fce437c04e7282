// Knowledge gaps and reports by the customer's language (conversations.language, tickets.language;
// "unknown" when not known): the gaps API counts the period's gap answers per language and per
// group and filters by one; the report's by_language breaks conversations (with the report's own
// judgements) and tickets down; the CSV, the gaps page and the report page show the same.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray } from "drizzle-orm";
import { conversations, tickets } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { askGapQuestions } from "./gaps-seed.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let auth: { authorization: string };
const gaps = async (query = "") => app.request(`/api/knowledge/gaps${query}`, { headers: auth });
type Gaps = {
  gaps: { questions: string[]; by_language: Record<string, number>; conversations: { id: string }[] }[];
  by_language: { language: string; count: number }[];
};

beforeAll(async () => {
  app = await createTestApp({ LLM_PROVIDER: "builtin" });
  org = await seedOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  await askGapQuestions(app, auth, org.widget_key);
  // The languages the conversations were held in: Tokyo's two in Spanish, the password one in
  // German, the rest not known (as conversations held before languages were recorded are; the chat
  // now records one for every message it can tell, else the widget's or the org's).
  await app.deps.db.update(conversations).set({ language: null }).where(eq(conversations.orgId, org.org_id));
  await app.deps.db.update(tickets).set({ language: null }).where(eq(tickets.orgId, org.org_id));
  const all = (await (await gaps()).json()) as Gaps;
  const of = (text: string) => all.gaps.find((g) => g.questions.some((q) => q.includes(text)))!.conversations.map((c) => c.id);
  await app.deps.db
    .update(conversations)
    .set({ language: "es" })
    .where(and(eq(conversations.orgId, org.org_id), inArray(conversations.id, of("Tokyo"))));
  await app.deps.db
    .update(conversations)
    .set({ language: "de" })
    .where(and(eq(conversations.orgId, org.org_id), inArray(conversations.id, of("password"))));
  await app.deps.db.update(tickets).set({ language: "es" }).where(eq(tickets.orgId, org.org_id));
}, 120_000);
afterAll(() => app.close());

describe("knowledge gaps by language", () => {
  test("the period's gap answers by language, each group's too; a filter keeps one language (unknown included)", async () => {
    const all = (await (await gaps()).json()) as Gaps;
    expect(all.by_language).toEqual([
      { language: "es", count: 2 },
      { language: "de", count: 1 },
      { language: "unknown", count: 1 },
    ]);
    const tokyo = all.gaps.find((g) => g.questions.some((q) => q.includes("Tokyo")))!;
    expect(tokyo.by_language).toEqual({ es: 2 });
    const spanish = (await (await gaps("?language=es-ES")).json()) as Gaps;
    expect(spanish.gaps.map((g) => g.by_language)).toEqual([{ es: 2 }]);
    expect(spanish.by_language).toEqual(all.by_language); // the counts are the period's, whatever the filter
    const unknown = (await (await gaps("?language=unknown")).json()) as Gaps;
    expect(unknown.gaps).toHaveLength(1);
    expect(unknown.gaps[0]!.questions[0]).toContain("delivery address");
    expect(((await (await gaps("?language=fr")).json()) as Gaps).gaps).toEqual([]);
  });

  test("a bad language is a 400: at 35 characters read, at 36 refused", async () => {
    for (const bad of ["e", "español", "x-default", "1a"]) expect((await gaps(`?language=${bad}`)).status).toBe(400);
    const at = `en-${"a".repeat(8)}-${"b".repeat(8)}-${"c".repeat(8)}-abcde`;
    expect(at.length).toBe(35);
    expect((await gaps(`?language=${at}`)).status).toBe(200);
    expect((await gaps(`?language=${at}f`)).status).toBe(400);
  });

  test("the gaps page filters by language and shows the counts", async () => {
    const page = await (await app.request("/dashboard/knowledge/gaps?language=es", { headers: auth })).text();
    expect(page).toContain("Spanish (es) 2 · German (de) 1 · Unknown 1");
    expect(page).toContain("Do you have an office in Tokyo?");
    expect(page).not.toContain("How do I reset my password?");
    expect(page).toMatch(/<option value="es" selected>Spanish \(es\)<\/option>/);
  });
});

describe("reports by language", () => {
  test("conversations (with the report's judgements) and tickets by language; the sums are the report's; CSV and page", async () => {
    const res = await app.request("/api/reports/summary?period=30d", { headers: auth });
    expect(res.status).toBe(200);
    const report = (await res.json()) as any;
    const rows = report.by_language as { language: string; conversations: number; handed_off: number; tickets: number; ai_resolved_confirmed: number }[];
    const sum = (k: "conversations" | "handed_off" | "tickets" | "ai_resolved_confirmed") => rows.reduce((n, r) => n + r[k], 0);
    expect(sum("conversations")).toBe(report.conversations);
    expect(sum("handed_off")).toBe(report.handed_off);
    expect(sum("tickets")).toBe(report.tickets);
    expect(sum("ai_resolved_confirmed")).toBe(report.ai_resolved_confirmed);
    expect(rows.find((r) => r.language === "es")!.conversations).toBe(2);
    expect(rows.find((r) => r.language === "de")!.conversations).toBe(1);
    expect(rows.find((r) => r.language === "unknown")!.conversations).toBe(report.conversations - 3);
    expect(rows.find((r) => r.language === "es")!.tickets).toBe(report.tickets);
    const csv = await (await app.request("/api/reports/summary.csv?period=30d", { headers: auth })).text();
    expect(csv).toContain("\r\nlanguage_es_conversations,2\r\n");
    expect(csv).toContain(`\r\nlanguage_unknown_conversations,${report.conversations - 3}\r\n`);
    const page = await (await app.request("/dashboard/reports?period=30d", { headers: auth })).text();
    expect(page).toContain("By language");
    expect(page).toContain('<th scope="row">Spanish (es)</th><td>2</td>');
    // Another org's report has none of these.
    const other = await seedOrg(app);
    const otherAuth = { authorization: `Bearer ${await signIn(app, other.admin_email, other.password)}` };
    expect(((await (await app.request("/api/reports/summary", { headers: otherAuth })).json()) as any).by_language).toEqual([]);
  });
});
