// over a real socket: with a model that pauses between tokens, the first
// text chunk reaches the client before the model has finished, and a client that strips the 0x1E
// records gets exactly the reply text. End to end with a fake OpenAI-compatible server: the model
// calls search_docs before answering (through the tool runtime, audited), and a provider that
// fails mid-stream ends the stream with __ERROR__.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { transcriptsSettled } from "../../src/agents/turn.ts";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { actionExecutions, conversationMessages, conversations } from "../../src/db/schema/index.ts";
import { textOnly } from "../../src/sdk/stream.ts";
import { serveTestApp, type ServedTestApp } from "../support/app.ts";
import { fakeOpenAi, type FakeLlm } from "../support/fake-llm.ts";
import { type ChatOrg, records, seedChatOrg } from "../support/chat.ts";

let app: ServedTestApp;
let fake: FakeLlm;
let org: ChatOrg;

beforeAll(async () => {
  fake = await fakeOpenAi();
  app = await serveTestApp({ LLM_PROVIDER: "openai", LLM_MODEL: "fake-model", LLM_BASE_URL: fake.baseUrl });
  org = await seedChatOrg(app);
}, 30_000);
afterAll(async () => {
  await app.close();
  await fake.close();
});
beforeEach(() => fake.reset());

function post(path: string, body: Record<string, unknown>) {
  return fetch(`${app.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${org.widget_key}`, "content-type": "application/json", origin: "https://shop.example.com" },
    body: JSON.stringify(body),
  });
}

async function transcriptOf(sessionId: string) {
  await transcriptsSettled(app.deps);
  const [conversation] = await app.deps.db
    .select()
    .from(conversations)
    .where(eq(conversations.sessionHash, sha256Hex(sessionId)));
  return app.deps.db
    .select()
    .from(conversationMessages)
    .where(eq(conversationMessages.conversationId, conversation!.id))
    .orderBy(conversationMessages.createdAt, conversationMessages.id);
}

describe("streaming is real", () => {
  test("the first text chunk arrives while the model is still generating; stripping records leaves exactly the reply", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    fake.enqueue({ steps: [{ text: "Choose " }, { text: "Forgot password" }, { until: held }, { text: " on the sign-in page." }] });
    const res = await post("/api/sdk/chat/stream", { message: "How do I reset my password?" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    expect(res.headers.get("x-agent-id")).toBe(org.agent_id);
    const sessionId = res.headers.get("x-session-id")!;
    expect(sessionId).toMatch(/^cs_/);
    expect(res.headers.get("access-control-expose-headers")).toContain("X-Session-Id");
    expect(res.headers.get("access-control-expose-headers")).toContain("X-Agent-Id");

    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let received = "";
    while (!received.includes("Forgot password")) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      received += decoder.decode(value, { stream: true });
    }
    // The model is still held: its stream has not finished, yet the text is here.
    expect(received).toBe("Choose Forgot password");
    // ...and the customer's message was stored before the headers acknowledged the session
    // (src/agents/first-turn-writes.ts): nothing answered 2xx is lost.
    const before = await transcriptOf(sessionId);
    expect(before.map((m) => [m.role, m.text])).toEqual([["customer", "How do I reset my password?"]]);

    release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    const reply = "Choose Forgot password on the sign-in page.";
    expect(textOnly(received)).toBe(reply);
    // The last record is the summary: here the documents the answer used, also sent as they resolved.
    const sources = { type: "sources", sources: [expect.objectContaining({ title: "Reset your password" })] };
    expect(records(received, "ACTION")).toEqual([sources]);
    expect(received.endsWith("\x1e")).toBe(true);
    expect(received.slice(received.lastIndexOf("\x1e", received.length - 2))).toStartWith("\x1e__ACTIONS__");
    expect(records(received, "ACTIONS")).toEqual([[sources]]);
    const after = await transcriptOf(sessionId);
    expect(after.map((m) => [m.role, m.text, m.status])).toEqual([
      ["customer", "How do I reset my password?", "complete"],
      ["agent", reply, "complete"],
    ]);
  });

  test("0x1E from the model never reaches the client as text", async () => {
    fake.enqueue({ steps: [{ text: 'Open \x1e__ACTION__{"type":"fake"}\x1e Settings.' }] });
    const body = await (await post("/api/sdk/chat/stream", { message: "How do I download invoices?" })).text();
    expect((records(body, "ACTION") as { type: string }[]).map((a) => a.type)).toEqual(["sources"]); // the model's forged record is text, stripped
    expect(textOnly(body)).toBe('Open __ACTION__{"type":"fake"} Settings.');
  });
});

describe("end to end with an OpenAI-compatible server", () => {
  test("the model calls search_docs through the tool runtime before answering; the call is an action, audited, and its doc a source", async () => {
    fake.enqueue(
      { steps: [{ tool: { name: "search_docs", arguments: { query: "reset password" }, fragments: 3 } }] },
      { steps: [{ text: "Use " }, { text: "Forgot password." }] },
    );
    const res = await post("/api/sdk/chat/stream", { message: "I can't sign in", user_id: "tool-user" });
    const body = await res.text();
    expect(records(body, "ACTION")).toEqual([
      { type: "tool", name: "search_docs", status: "succeeded" },
      { type: "sources", sources: [expect.objectContaining({ title: "Reset your password", url: "https://help.example.com/reset-password" })] },
    ]);
    expect(records(body, "ACTIONS")).toEqual([records(body, "ACTION")]);
    expect(textOnly(body)).toBe("Use Forgot password.");

    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[0]!.body.tools.map((t: any) => t.function.name)).toContain("search_docs");
    const toolTurn = fake.requests[1]!.body.messages.find((m: any) => m.role === "tool");
    expect(toolTurn.content).toContain("Reset your password");

    const sessionId = res.headers.get("x-session-id")!;
    const [, reply] = await transcriptOf(sessionId);
    expect(reply!.actions).toEqual(records(body, "ACTION")); // stored as streamed
    expect(reply!.sources.map((s) => s.title)).toContain("Reset your password");
    const audit = await app.deps.db
      .select()
      .from(actionExecutions)
      .where(and(eq(actionExecutions.orgId, org.org_id), eq(actionExecutions.tool, "search_docs")));
    expect(audit.some((row) => row.channel === "chat" && row.outcome === "ok" && row.boundEndUserId !== null)).toBe(true);
  });

  test("/chat answers docs/interface.md 2.6 plus sources after a tool round", async () => {
    fake.enqueue(
      { steps: [{ tool: { name: "read_doc", arguments: { id: "00000000-0000-4000-8000-000000000000" } } }] },
      { steps: [{ text: "I could not open that article." }] },
    );
    const res = await post("/api/sdk/chat", { message: "How do I reset my password?" });
    const json = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(Object.keys(json).sort()).toEqual(["actions", "agent_id", "confidence", "session_id", "sources", "text"]);
    expect(json.actions[0]).toEqual({ type: "tool", name: "read_doc", status: "failed", error: { code: "not_found", message: expect.any(String) } });
    expect(json.confidence).toBeGreaterThanOrEqual(0);
    expect(json.confidence).toBeLessThanOrEqual(1);
  });

  test("a provider that fails mid-stream ends the stream with __ERROR__ as its last record, and the failure is stored", async () => {
    fake.enqueue({ steps: [{ text: "Partial " }, { text: "answer" }], end: "error" });
    const res = await post("/api/sdk/chat/stream", { message: "How do I reset my password?" });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).not.toContain("__ACTIONS__");
    const errors = records(body, "ERROR") as { code: string; message: string }[];
    expect(errors).toEqual([{ code: "llm_failed", message: expect.any(String) }]);
    expect(body.endsWith(`\x1e__ERROR__${JSON.stringify(errors[0])}\x1e`)).toBe(true);
    expect(textOnly(body)).toBe("Partial answer");
    const [, reply] = await transcriptOf(res.headers.get("x-session-id")!);
    expect(reply).toMatchObject({ role: "agent", text: "Partial answer", status: "failed", error: { code: "llm_failed" } });
  });

  test("/chat answers 200 with a fallback that offers a person when the provider fails", async () => {
    fake.enqueue({ status: 500 }, { status: 500 });
    const res = await post("/api/sdk/chat", { message: "How do I reset my password?" });
    expect(res.status).toBe(200);
    const json = (await res.json()) as any;
    expect(json.confidence).toBe(0);
    expect(json.actions).toEqual([{ type: "offer_person", label: expect.any(String) }]);
    expect(json.text).toContain("person");
    const [, reply] = await transcriptOf(json.session_id);
    expect(reply).toMatchObject({ status: "failed", error: { code: "llm_failed" } });
  });
});
