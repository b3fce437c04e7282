// One chat turn, two sinks (src/agents/turn.ts; docs/decisions.md "One chat turn"): /chat and
// /chat/stream driven through the same failure cases — a model error, a tool that fails, the
// database gone mid-turn, the client gone mid-answer — store the same reply, with the same status
// and code.
// Real requests over a socket, a fake OpenAI-compatible model on loopback; the database outage runs
// a real server process behind a TCP proxy (test/support/pg-proxy.ts), PostgreSQL only.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { and, eq, or } from "drizzle-orm";
import { transcriptsSettled } from "../../src/agents/turn.ts";
import { conversationMessages, conversations, endUsers } from "../../src/db/schema/index.ts";
import { serveTestApp, type ServedTestApp, type TestApp } from "../support/app.ts";
import { type ChatOrg, records, seedChatOrg } from "../support/chat.ts";
import { engine } from "../support/db.ts";
import { fakeOpenAi, type FakeLlm } from "../support/fake-llm.ts";
import { type PgProxy, startPgProxy } from "../support/pg-proxy.ts";
import { type RunningServer, startServer } from "../support/process.ts";

type Sink = "/api/sdk/chat" | "/api/sdk/chat/stream";
const SINKS: Sink[] = ["/api/sdk/chat", "/api/sdk/chat/stream"];

let app: ServedTestApp;
let fake: FakeLlm;
let org: ChatOrg;

beforeAll(async () => {
  fake = await fakeOpenAi();
  app = await serveTestApp({ LLM_PROVIDER: "openai", LLM_MODEL: "fake-model", LLM_BASE_URL: fake.baseUrl, NODE_ENV: "development" });
  org = await seedChatOrg(app);
}, 30_000);
afterAll(async () => {
  await app.close();
  await fake.close();
});
beforeEach(() => fake.reset());

function post(base: string, sink: Sink, body: Record<string, unknown>, signal?: AbortSignal) {
  return fetch(`${base}${sink}`, {
    method: "POST",
    headers: { authorization: `Bearer ${org.widget_key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
}

/** The conversation of `userId`, as stored: every message with what a reader of the transcript sees. */
async function stored(test: TestApp, userId: string) {
  const [user] = await test.deps.db
    .select()
    .from(endUsers)
    .where(and(eq(endUsers.orgId, org.org_id), or(eq(endUsers.externalId, userId), eq(endUsers.claimedExternalId, userId))));
  const [conversation] = await test.deps.db.select().from(conversations).where(eq(conversations.endUserId, user!.id));
  const rows = await test.deps.db
    .select()
    .from(conversationMessages)
    .where(eq(conversationMessages.conversationId, conversation!.id))
    .orderBy(conversationMessages.createdAt, conversationMessages.id);
  return rows.map((m) => ({
    role: m.role,
    text: m.text,
    status: m.status,
    error: m.error?.code ?? null,
    actions: m.actions,
    sources: m.sources.map((s) => s.title),
    confidence: m.confidence,
    routing: m.routing,
  }));
}

/** Waits (a bounded number of looks) until the turn of `userId` has stored its reply. */
async function replyStored(userId: string) {
  for (let tries = 0; ; tries++) {
    await transcriptsSettled(app.deps);
    const rows = await stored(app, userId);
    if (rows.some((m) => m.role === "agent") || tries === 250) return rows;
    await Bun.sleep(20);
  }
}

describe("both sinks fail the same way for the same cause", () => {
  test("the model fails mid-answer: failed, llm_failed, what was produced kept; /chat answers its fallback, the stream an error record", async () => {
    const seen: Record<string, unknown> = {};
    for (const sink of SINKS) {
      fake.enqueue({ steps: [{ text: "Partial " }, { text: "answer" }], end: "error" });
      const res = await post(app.url, sink, { message: "How do I reset my password?", user_id: `model-error${sink}` });
      expect(res.status).toBe(200);
      if (sink === "/api/sdk/chat") expect(((await res.json()) as any).actions).toEqual([{ type: "offer_person", label: expect.any(String) }]);
      else expect(records(await res.text(), "ERROR")).toEqual([{ code: "llm_failed", message: expect.any(String) }]);
      seen[sink] = await replyStored(`model-error${sink}`);
    }
    expect(seen["/api/sdk/chat"]).toEqual(seen["/api/sdk/chat/stream"]);
    expect((seen["/api/sdk/chat"] as unknown[])[1]).toEqual({
      role: "agent",
      text: "Partial answer",
      status: "failed",
      error: "llm_failed",
      actions: [],
      sources: [],
      confidence: null,
      routing: null,
    });
  });

  test("a tool fails: the answer goes on and is stored complete, the failed call among its actions", async () => {
    const seen: Record<string, unknown> = {};
    for (const sink of SINKS) {
      fake.enqueue(
        { steps: [{ tool: { name: "read_doc", arguments: { id: "00000000-0000-4000-8000-000000000000" } } }] },
        { steps: [{ text: "I could not open that article." }] },
      );
      const res = await post(app.url, sink, { message: "How do I reset my password?", user_id: `tool-failure${sink}` });
      expect(res.status).toBe(200);
      await res.text();
      seen[sink] = await replyStored(`tool-failure${sink}`);
    }
    expect(seen["/api/sdk/chat"]).toEqual(seen["/api/sdk/chat/stream"]);
    const reply = (seen["/api/sdk/chat"] as any[])[1];
    expect(reply).toMatchObject({ role: "agent", text: expect.stringContaining("I could not open that article."), status: "complete", error: null });
    expect(reply.actions[0]).toEqual({ type: "tool", name: "read_doc", status: "failed", error: { code: "not_found", message: expect.any(String) } });
  });

  test("the client goes away mid-answer: interrupted, cancelled, what was produced kept, the turn not waiting for the model", async () => {
    const seen: Record<string, unknown> = {};
    for (const sink of SINKS) {
      let release!: () => void;
      fake.enqueue({ steps: [{ text: "Partial " }, { until: new Promise((resolve) => (release = () => resolve(undefined))) }, { text: "too late." }] });
      const requests = fake.requests.length;
      const gone = new AbortController();
      const answer = post(app.url, sink, { message: "How do I reset my password?", user_id: `gone${sink}` }, gone.signal);
      if (sink === "/api/sdk/chat/stream") {
        const reader = (await answer).body!.getReader();
        let received = "";
        while (!received.includes("Partial ")) received += new TextDecoder().decode((await reader.read()).value);
        await reader.cancel();
      } else {
        // /chat answers nothing until the turn ends: the client leaves while the model is at its pause.
        while (fake.requests.length === requests) await Bun.sleep(10);
        await Bun.sleep(100);
        gone.abort();
        await answer.catch(() => {});
      }
      seen[sink] = await replyStored(`gone${sink}`);
      release();
    }
    expect(seen["/api/sdk/chat"]).toEqual(seen["/api/sdk/chat/stream"]);
    expect((seen["/api/sdk/chat"] as unknown[])[1]).toEqual({
      role: "agent",
      text: "Partial ",
      status: "interrupted",
      error: "cancelled",
      actions: [],
      sources: [],
      confidence: null,
      routing: null,
    });
  });
});

describe.skipIf(engine !== "postgres")("the database goes away mid-turn", () => {
  let proxy: PgProxy;
  let server: RunningServer;
  beforeAll(async () => {
    proxy = await startPgProxy(app.database.url!);
    server = await startServer({
      DATABASE_URL: proxy.url,
      SECRET_KEY: app.deps.config.secretKey!.toString("base64"),
      SEED_DEMO: "0",
      LOG_LEVEL: "error",
      NODE_ENV: "development",
      DATABASE_CONNECT_TIMEOUT_SECONDS: "2",
      LLM_PROVIDER: "openai",
      LLM_MODEL: "fake-model",
      LLM_BASE_URL: fake.baseUrl,
    });
  }, 120_000);
  afterAll(async () => {
    proxy?.restore();
    if (server && server.proc.exitCode === null) await server.stop();
    proxy?.close();
  }, 60_000);

  test("after the message is stored and before the reply is: no reply stored by either sink, and the conversation goes on once it is back", async () => {
    const seen: Record<string, unknown> = {};
    for (const sink of SINKS) {
      let release!: () => void;
      fake.enqueue({ steps: [{ text: "Choose " }, { until: new Promise((resolve) => (release = () => resolve(undefined))) }, { text: "Forgot password." }] });
      const requests = fake.requests.length;
      const answer = post(server.url, sink, { message: "How do I reset my password?", user_id: `outage${sink}` });
      while (fake.requests.length === requests) await Bun.sleep(10);
      // The model still runs: the new session and its question are written once
      // QUESTION_STORED_WITHIN_MS has passed (src/agents/first-turn-writes.ts).
      const written = () =>
        stored(app, `outage${sink}`).then(
          (rows) => rows.length > 0,
          () => false,
        );
      for (let i = 0; i < 200 && !(await written()); i++) await Bun.sleep(20);
      expect(await written()).toBe(true);
      proxy.cut();
      release();
      const res = await answer;
      if (sink === "/api/sdk/chat") {
        expect(res.status).toBe(503);
        expect(((await res.json()) as any).error.code).toBe("database_unavailable");
      } else {
        expect(res.status).toBe(200); // the headers left before the database went away
        expect(records(await res.text(), "ACTIONS")).toHaveLength(1); // the reply is stored after the stream completes (docs/interface.md 4.5)
      }
      proxy.restore();
      seen[sink] = await stored(app, `outage${sink}`);
      const again = await post(server.url, "/api/sdk/chat", {
        message: "Still there?",
        user_id: `outage${sink}`,
        session_id: res.headers.get("x-session-id") ?? undefined,
      });
      expect(again.status).toBe(200);
    }
    expect(seen["/api/sdk/chat"]).toEqual(seen["/api/sdk/chat/stream"]);
    expect((seen["/api/sdk/chat"] as any[]).map((m) => [m.role, m.text, m.status])).toEqual([["customer", "How do I reset my password?", "complete"]]);
  }, 60_000);
});
