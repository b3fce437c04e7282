import { afterAll, beforeAll, expect, test } from "bun:test";
import { transcriptsSettled } from "../../src/agents/turn.ts";
import type { DbEvent } from "../../src/db/observe.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { chat, type ChatOrg, seedChatOrg } from "../support/chat.ts";

let app: TestApp;
let org: ChatOrg;
let events: DbEvent[] = [];
let on = false;
beforeAll(async () => {
  app = await createTestApp({}, { observe: (e) => on && events.push(e) });
  org = await seedChatOrg(app);
});
afterAll(() => app.close());

async function turn(body: Record<string, unknown>, path?: string) {
  events = [];
  on = true;
  const res = await chat(app, org, body, path);
  const json = path?.endsWith("stream") ? await res.text() : ((await res.json()) as any);
  await transcriptsSettled(app.deps);
  await Bun.sleep(50);
  on = false;
  console.log(
    path ?? "chat",
    JSON.stringify(
      events.map((e) => (e.kind === "statement" ? e.sql.slice(0, 160) : "BEGIN")),
      null,
      1,
    ),
  );
  return json;
}

test("diag", async () => {
  const a = await turn({ message: "How do I reset my password?" });
  await turn({ message: "How do I reset my password?" });
  await turn({ message: "And invoices?", session_id: a.session_id });
  await turn({ message: "And invoices?", session_id: a.session_id });
  await turn({ message: "How do I reset my password?" }, "/api/sdk/chat/stream");
  expect(1).toBe(1);
});
