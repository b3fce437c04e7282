// The chat pipeline end to end on the Anthropic Messages wire format (fake server on loopback):
// the model calls search_docs (tool_use) before answering and the pipeline runs it through the
// tool runtime; a mid-stream `error` event ends the stream with __ERROR__. Images stay with the
// customer's message in the transcript.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { transcriptsSettled } from "../../../src/agents/turn.ts";
import { sha256Hex } from "../../../src/crypto/tokens.ts";
import { conversations } from "../../../src/db/schema/index.ts";
import { textOnly } from "../../../src/sdk/stream.ts";
import { createTestApp, signIn, type TestApp } from "../../support/app.ts";
import { fakeAnthropic, type FakeLlm } from "../../support/fake-llm.ts";
import { chat, type ChatOrg, records, seedChatOrg } from "../../support/chat.ts";

let app: TestApp;
let fake: FakeLlm;
let org: ChatOrg;

beforeAll(async () => {
  fake = await fakeAnthropic();
  app = await createTestApp({ LLM_PROVIDER: "anthropic", LLM_MODEL: "claude-fake", LLM_API_KEY: "sk-ant-test", LLM_BASE_URL: fake.baseUrl });
  org = await seedChatOrg(app);
}, 30_000);
afterAll(async () => {
  await app.close();
  await fake.close();
});
beforeEach(() => fake.reset());

describe("Anthropic Messages", () => {
  test("tool_use of search_docs runs through the runtime, its result goes back as tool_result, then the answer streams", async () => {
    fake.enqueue(
      { steps: [{ text: "Let me check. " }, { tool: { name: "search_docs", arguments: { query: "reset password" }, fragments: 2 } }] },
      { steps: [{ text: "Choose Forgot password on the sign-in page." }] },
    );
    const res = await chat(app, org, { message: "How do I reset my password?" }, "/api/sdk/chat/stream");
    const body = await res.text();
    expect(textOnly(body)).toBe("Let me check. Choose Forgot password on the sign-in page.");
    expect(records(body, "ACTIONS")).toEqual([
      [
        { type: "tool", name: "search_docs", status: "succeeded" },
        { type: "sources", sources: [expect.objectContaining({ title: "Reset your password" })] },
      ],
    ]);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[0]!.body.tools.map((t: any) => t.name)).toContain("search_docs");
    const results = fake.requests[1]!.body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter(
      (b: any) => b.type === "tool_result",
    );
    expect(results).toHaveLength(1);
    expect(JSON.stringify(results[0])).toContain("Reset your password");
  });

  test("a mid-stream error event ends the stream with __ERROR__", async () => {
    fake.enqueue({ steps: [{ text: "Partial" }], end: "error" });
    const body = await (await chat(app, org, { message: "How do I reset my password?" }, "/api/sdk/chat/stream")).text();
    expect(records(body, "ERROR")).toEqual([{ code: "llm_failed", message: expect.any(String) }]);
    expect(body.endsWith("\x1e")).toBe(true);
    expect(body.lastIndexOf("__ERROR__")).toBeGreaterThan(body.lastIndexOf("Partial"));
    expect(body).not.toContain("__ACTIONS__");
  });
});

test("images are stored with the customer's message and the model is told they came", async () => {
  fake.enqueue({ steps: [{ text: "I see your screenshot." }] });
  const png = `data:image/png;base64,${Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString("base64")}`;
  const res = await chat(app, org, { message: "What is this error?", images: [png, "https://cdn.example.com/shot.png"] });
  expect(res.status).toBe(200);
  await transcriptsSettled(app.deps);
  expect(JSON.stringify(fake.requests[0]!.body.messages)).toContain("[The customer attached 2 images.]");
  const admin = await signIn(app, org.admin_email, org.password);
  const { session_id } = (await res.json()) as { session_id: string };
  const [row] = await app.deps.db
    .select({ id: conversations.id })
    .from(conversations)
    .where(eq(conversations.sessionHash, sha256Hex(session_id)));
  const conversation = (await (await app.request(`/api/conversations/${row!.id}`, { headers: { authorization: `Bearer ${admin}` } })).json()) as any;
  expect(conversation.messages[0]).toMatchObject({ role: "customer", text: "What is this error?", images: [png, "https://cdn.example.com/shot.png"] });
});
