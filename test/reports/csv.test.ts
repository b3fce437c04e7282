// GET /api/reports/summary.csv with customers' questions that start a formula (issue: a knowledge
// gap `@SUM(1+1) …` came out as a quoted cell a spreadsheet evaluates): every cell reads back
// without a formula, each hostile question with its leading apostrophe (src/kit/csv.ts).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { storeCustomerMessage, storeReply } from "../../src/conversations/transcript.ts";
import { conversations } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { formulaCells, HOSTILE_CELLS, parseCsv } from "../support/csv.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let token: string;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  token = await signIn(app, org.admin_email, org.password);
  const start = app.deps.now().getTime() - 3 * 86_400_000;
  for (const [i, question] of HOSTILE_CELLS.entries()) {
    const at = start + i * 60_000;
    const id = crypto.randomUUID();
    const [row] = await app.deps.db
      .insert(conversations)
      .values({ id, orgId: org.org_id, sessionHash: sha256Hex(id), anonymous: true, createdAt: new Date(at), updatedAt: new Date(at) })
      .returning();
    await storeCustomerMessage(app.deps, row!, { text: question, images: [], mode: "chat" });
    await storeReply(app.deps, row!, {
      text: "I am not sure.",
      agentId: org.agent_id,
      actions: [],
      sources: [],
      confidence: 0.1,
      routing: null,
      status: "complete",
    });
  }
}, 60_000);
afterAll(() => app.close());

test("the report's CSV: every hostile question defused, no cell a formula", async () => {
  const response = await app.request("/api/reports/summary.csv?period=30d", { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  const rows = parseCsv(await response.text());
  expect(rows[0]).toEqual(["metric", "value"]);
  const questions = rows.filter(([k]) => /^knowledge_gap_\d+_question$/.test(k!)).map(([, v]) => v);
  expect(questions.sort()).toEqual(HOSTILE_CELLS.map((q) => `'${q.trim()}`).sort());
  expect(formulaCells(rows)).toEqual([]);
});
