// `svc-agents eval`, run as a real process: a small question file against an org's active agent
// (builtin provider) prints one JSON line per question and a line of totals; bad files are usage errors.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openPglite, openPostgres, type Database } from "../../src/db/client.ts";
import { docs } from "../../src/db/schema/index.ts";
import { createTestDatabase, engine, seedDataDir, type TestDatabase } from "../support/db.ts";
import { runCli, tempDir } from "../support/process.ts";

let testDb: TestDatabase | undefined;
let env: Record<string, string>;
let dataDir = "";
let orgId = "";
let resetId = "";
const dir = tempDir();

async function withDb<T>(use: (db: Database) => Promise<T>): Promise<T> {
  const db = engine === "postgres" ? openPostgres(testDb!.url!, { max: 1 }) : await openPglite(`${dataDir}/pgdata`);
  try {
    return await use(db);
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  if (engine === "postgres") {
    testDb = await createTestDatabase();
    env = { DATABASE_URL: testDb.url!, SECRET_KEY: randomBytes(32).toString("base64"), LLM_PROVIDER: "builtin" };
  } else {
    dataDir = tempDir();
    await seedDataDir(dataDir);
    env = { DATA_DIR: dataDir, LLM_PROVIDER: "builtin" };
  }
  const created = await runCli(["org", "create", "--name", "Eval", "--admin-email", "eval@example.com", "--admin-password", "long-enough-1"], env);
  expect(created.code).toBe(0);
  orgId = JSON.parse(created.stdout).org_id;
  await withDb(async ({ db }) => {
    const rows = await db
      .insert(docs)
      .values([
        { orgId, title: "Resetting your password", body: "## Reset\nChoose Forgot password on the sign-in page; the link is valid for 30 minutes." },
        { orgId, title: "Shipping", body: "## Countries\nWe ship to Canada and Mexico within 5 days." },
      ])
      .returning({ id: docs.id });
    resetId = rows[0]!.id;
  });
}, 60_000);
afterAll(() => testDb?.close());

test("prints one line per question (answered, confidence, right or wrong, sources) and the totals", async () => {
  const file = join(dir, "questions.jsonl");
  writeFileSync(
    file,
    [
      JSON.stringify({ question: "How do I reset my password?", expected_doc: resetId }),
      JSON.stringify({ question: "Do you ship to Canada?", expected_phrase: "canada" }),
      JSON.stringify({ question: "How do I reset my password?", expected_doc: "Shipping" }),
      "",
      JSON.stringify({ question: "Is there an office in Tokyo?" }),
    ].join("\n"),
  );
  const result = await runCli(["eval", "--org", orgId, "--questions", file], env);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const lines = result.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(lines).toHaveLength(5);
  expect(lines[0]).toMatchObject({ question: "How do I reset my password?", answered: true, correct: true });
  expect(lines[0].sources[0].doc_id).toBe(resetId);
  expect(lines[0].confidence).toBeGreaterThanOrEqual(0.5);
  expect(lines[1]).toMatchObject({ correct: true });
  expect(lines[2]).toMatchObject({ correct: false, answered: true });
  expect(lines[3]).toMatchObject({ correct: null, sources: [] });
  expect(lines[4].totals).toEqual({ questions: 4, answered: 0.75, correct: 0.667, recall_at_1: 0.5, recall_at_3: 0.5, confidently_wrong: 0.333 });
}, 60_000);

test("a bad file is a usage error naming the line", async () => {
  const file = join(dir, "bad.jsonl");
  writeFileSync(file, `${JSON.stringify({ question: "ok?" })}\n{"expected_doc": "x"}\nnot json\n`);
  const result = await runCli(["eval", "--org", orgId, "--questions", file], env);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).toContain('line 2: needs a non-empty "question"');
  expect(result.stderr).toContain("line 3: not a JSON object");
  const missing = await runCli(["eval", "--org", orgId, "--questions", join(dir, "absent.jsonl")], env);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("cannot read");
  expect((await runCli(["eval", "--org", "42", "--questions", file], env)).code).toBe(2);
}, 60_000);

test("takes the dashboard's formats too: CSV with a header, and plain lines", async () => {
  const csv = join(dir, "questions.csv");
  writeFileSync(csv, `expected_doc,question\n${resetId},"How do I reset my password, please?"\nShipping,Do you ship to Canada?\n`);
  const fromCsv = await runCli(["eval", "--org", orgId, "--questions", csv], env);
  expect(fromCsv.stderr).toBe("");
  expect(fromCsv.code).toBe(0);
  const csvLines = fromCsv.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(csvLines).toHaveLength(3);
  expect(csvLines[0]).toMatchObject({ question: "How do I reset my password, please?", correct: true });
  expect(csvLines[1]).toMatchObject({ question: "Do you ship to Canada?", correct: true });
  expect(csvLines[2].totals).toMatchObject({ questions: 2, recall_at_1: 1 });

  const plain = join(dir, "questions.txt");
  writeFileSync(plain, "How do I reset my password?\n\nIs there an office in Tokyo?\n");
  const fromLines = await runCli(["eval", "--org", orgId, "--questions", plain], env);
  expect(fromLines.code).toBe(0);
  const plainLines = fromLines.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(plainLines.map((l) => l.question)).toEqual(["How do I reset my password?", "Is there an office in Tokyo?", undefined]);
  expect(plainLines[0]).toMatchObject({ correct: null });
  expect(plainLines[0].sources[0].doc_id).toBe(resetId);

  const badCsv = join(dir, "bad.csv");
  writeFileSync(badCsv, "question,expected_doc\nfine?,x\n,Shipping\n");
  const refused = await runCli(["eval", "--org", orgId, "--questions", badCsv], env);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain("line 3: needs a question");
}, 60_000);
