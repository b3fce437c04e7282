// The chat bodies' `locale` (README "Languages"): the widget's language sent with each message,
// bounded like the config's — 35 characters pass, 36 are a 400 with the field's path, on both
// endpoints; a value that is not a tag is taken (and ignored), never a 5xx.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/app.ts";
import { chat, type ChatOrg, seedChatOrg } from "../support/chat.ts";

let app: TestApp;
let org: ChatOrg;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedChatOrg(app);
}, 90_000);
afterAll(() => app.close());

for (const path of ["/api/sdk/chat", "/api/sdk/chat/stream"] as const)
  test(`${path}: locale up to 35 characters; 36 is a 400 naming /locale`, async () => {
    expect((await chat(app, org, { message: "How do I reset my password?", locale: "es" }, path)).status).toBe(200);
    expect((await chat(app, org, { message: "hi", locale: "a".repeat(35) }, path)).status).toBe(200);
    const over = await chat(app, org, { message: "hi", locale: "a".repeat(36) }, path);
    expect(over.status).toBe(400);
    const body = (await over.json()) as { error: { code: string; details?: { path: string }[] } };
    expect(body.error.code).toBeString();
    expect((body.error.details ?? []).map((d) => d.path)).toContain("/locale");
    expect((await chat(app, org, { message: "hi", locale: 7 as unknown as string }, path)).status).toBe(400);
  });
