// The one list of greetings (src/kit/greetings.ts) and the patterns built on it: a bare greeting is
// recognised by the built-in model's line and by the reports' SQL pattern alike, and a greeting
// followed by a question is neither.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.ts";
import { GREETING } from "../../src/conversations/report-facts.ts";
import { GREETING_LINE, GREETINGS } from "../../src/kit/greetings.ts";
import { createTestApp, type TestApp } from "../support/app.ts";

const bare = ["hi", "Hello!", "  hey ", "hiya", "yo", "Good morning", "good EVENING!"];
const more = ["hi, my invoice is wrong", "hello?", "history", "hey there can you help", "good night"];

test("the greeting line takes a bare greeting and nothing more", () => {
  for (const line of bare) expect([line, GREETING_LINE.test(line)]).toEqual([line, true]);
  for (const line of more) expect([line, GREETING_LINE.test(line)]).toEqual([line, false]);
});

describe("the reports' SQL pattern", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  test("is built on the same list and agrees with the JavaScript line on greetings", async () => {
    expect(GREETING).toContain(GREETINGS);
    // ("hello?" is not in it: the reports also take a question mark after a greeting.)
    for (const line of [...bare, "hi, my invoice is wrong", "history", "hey there can you help", "good night"]) {
      const [row] = await queryRows<{ greeting: boolean }>(app.deps.db, sql`select (${line} ~* ${GREETING}) as greeting`);
      expect([line, row!.greeting]).toEqual([line, GREETING_LINE.test(line)]);
    }
  });
});
