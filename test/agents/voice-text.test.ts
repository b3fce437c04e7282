// Answers written for the ear (README "Voice and video"): the rewrite on its own, fed whole and in
// pieces; then `mode: "voice"` and `"video"` through /api/sdk/chat and /chat/stream with the builtin
// provider and with an OpenAI-compatible model on loopback that must see the voice instruction.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { VOICE_INSTRUCTION, VOICE_TEXT, VoiceText, voiceText } from "../../src/agents/voice-text.ts";
import { textOnly } from "../../src/sdk/stream.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { fakeOpenAi, type FakeLlm } from "../support/fake-llm.ts";
import { type ChatOrg, chat, seedChatOrg } from "../support/chat.ts";

const MARKDOWN = /[*_`#|]|\]\(|https?:\/\/|^\s*[-+•]\s|^\s*\d+[.)]\s/m;

describe("the rewrite", () => {
  const cases: [string, string, string][] = [
    [
      'From "Reset your password":\n\nOpen the **sign-in page** and choose [Forgot password](https://x.example/a); the link works for 30 minutes.',
      "",
      "Open the sign-in page and choose Forgot password. The link works for 30 minutes.",
    ],
    ["## Steps\n\n1. Open `Settings`.\n2. Choose *Billing*\n- Click Cancel", "", "Steps. First, open Settings. Second, choose Billing. Third, click Cancel."],
    [
      "| Plan | Price |\n|---|---|\n| Pro | 10 |\n```\nrm -rf\n```\nSee https://help.example.com/plans for more.",
      "",
      "Plan, Price. Pro, 10. See the link below for more.",
    ],
    ["One. Two. Three. Four. Five. Six.", "how do I do it", "One. Two. Three. Four."],
    ["One. Two. Three. Four. Five. Six.", "explain in detail", "One. Two. Three. Four. Five. Six."],
  ];
  for (const [input, question, spoken] of cases)
    test(`${JSON.stringify(input.slice(0, 40))} → ${JSON.stringify(spoken.slice(0, 40))}`, () => {
      expect(voiceText(input, question)).toBe(spoken);
      // The same, fed one character at a time as a stream delivers it.
      const v = new VoiceText(/detail/.test(question) ? Number.MAX_SAFE_INTEGER : VOICE_TEXT.sentences);
      let streamed = "";
      for (const c of input) streamed += v.push(c);
      expect((streamed + v.end()).trim()).toBe(spoken);
    });

  test("whole sentences are handed over before the line ends (speech can start while the answer is written)", () => {
    const v = new VoiceText(10);
    expect(v.push("To reset it, open the page. Then choo")).toBe("To reset it, open the page. ");
  });
});

describe.each(["voice", "video"])("mode %s through both endpoints", (mode) => {
  let app: TestApp;
  let org: ChatOrg;
  let fake: FakeLlm;
  let modelApp: TestApp;
  let modelOrg: ChatOrg;
  beforeAll(async () => {
    fake = await fakeOpenAi();
    app = await createTestApp();
    org = await seedChatOrg(app);
    modelApp = await createTestApp({ LLM_PROVIDER: "openai", LLM_MODEL: "fake-model", LLM_BASE_URL: fake.baseUrl });
    modelOrg = await seedChatOrg(modelApp);
  }, 30_000);
  afterAll(async () => {
    await app.close();
    await modelApp.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  const reply = async (a: TestApp, o: ChatOrg, path: string, body: Record<string, unknown>) => {
    const res = await chat(a, o, body, path);
    expect(res.status).toBe(200);
    return path.endsWith("/stream") ? textOnly(await res.text()) : ((await res.json()) as { text: string }).text;
  };

  for (const path of ["/api/sdk/chat", "/api/sdk/chat/stream"])
    test(`builtin on ${path}: no prefix, no markdown, the answer from the right doc; chat mode is written, not spoken`, async () => {
      const spoken = await reply(app, org, path, { message: "How do I reset my password?", mode });
      expect(spoken).not.toContain('From "');
      expect(spoken).not.toMatch(MARKDOWN);
      expect(spoken).toContain("Forgot password");
      const written = await reply(app, org, path, { message: "How do I reset my password?", mode: "chat" });
      // Written: the plain text of the passage (the builtin drops markdown in every mode), its
      // paragraphs and sentences as they are, not shortened or enumerated for the ear.
      expect(written.startsWith("If you forgot your password, open the sign-in page and choose Forgot password.")).toBe(true);
      expect(written).toContain("We email you a reset link that stays valid for 30 minutes. Open it and choose a new password.");
      expect(written).not.toMatch(/\*\*|^#/m);
    });

  for (const path of ["/api/sdk/chat", "/api/sdk/chat/stream"])
    test(`OpenAI-compatible model on ${path}: the model is told, and markdown it writes anyway is rewritten`, async () => {
      fake.enqueue({
        steps: [
          { text: "## Reset\n\n1. Open the **sign-in" },
          { text: " page**.\n2. Choose `Forgot password`.\n\nMore: https://help.example.com/reset-password" },
        ],
      });
      const spoken = await reply(modelApp, modelOrg, path, { message: "How do I reset my password?", mode });
      expect(spoken).not.toMatch(MARKDOWN);
      expect(spoken).toContain("First, open the sign-in page. Second, choose Forgot password.");
      const system = JSON.stringify(fake.requests.at(-1)!.body.messages[0]);
      expect(system).toContain(VOICE_INSTRUCTION);
      fake.enqueue({ steps: [{ text: "**Hi**" }] });
      expect(await reply(modelApp, modelOrg, path, { message: "hello", mode: "chat" })).toBe("**Hi**");
      expect(JSON.stringify(fake.requests.at(-1)!.body.messages[0])).not.toContain(VOICE_INSTRUCTION);
    });

  test("a request for a person says what happens next in words", async () => {
    const spoken = await reply(app, org, "/api/sdk/chat", { message: "I want to talk to a person", mode });
    expect(spoken).toMatch(/a person from our team to take over .*They will reply here as soon as they can\./);
    expect(spoken).not.toMatch(/[*_`]/);
  });
});
