// The widget's server speech on /demo, under the page's own Content-Security-Policy, in a real
// headless Chromium: the speech server's audio (a blob: URL) plays to its end — no `error` event,
// no policy violation — which needs `media-src blob:` in the page's policy (FACTS "Languages and
// models": without it every play() fails). The customer speaks through a stand-in recognition
// (test/support/fake-recognition.ts); the speech comes from a fake TTS server on loopback. On a
// site whose policy leaves media-src out, the widget says the answer with the browser's voice
// instead, and warns once in the console. Skipped when chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { updateAgent } from "../../src/agents/service.ts";
import { type DemoInfo, ensureDemo } from "../../src/orgs/demo.ts";
import { serveTestApp, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/browser.ts";
import { fakeRecognition } from "../support/fake-recognition.ts";
import { fakeSpeech, type FakeSpeech } from "../support/fake-speech.ts";

const TIMEOUT = 60_000;
const missing = !browserAvailable();
if (missing) console.log(`demo-csp.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let speech: FakeSpeech;
let demo: DemoInfo;
let browser: Browser | undefined;
let site: ReturnType<typeof Bun.serve> | undefined;

beforeAll(async () => {
  if (missing) return;
  speech = await fakeSpeech();
  app = await serveTestApp({ TTS_BASE_URL: speech.baseUrl });
  demo = (await ensureDemo(app.deps))!;
  await updateAgent(app.deps, demo.orgId, { kind: "system", name: "test" }, demo.agentId!, {
    voice_config: { enabled: true, stt: "browser", tts: "server", language: "en-US" },
  });
  // A customer's site whose policy allows the widget's script and API but no media-src.
  const policy = `default-src 'none'; script-src ${app.url}; connect-src ${app.url}; style-src 'self'`;
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
<script src="${app.url}/widget.js" data-key="${demo.widgetKey}" data-org="${demo.orgId}" async></script></head><body><main><h1>Shop</h1></main></body></html>`;
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": policy } }),
  });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, "--autoplay-policy=no-user-gesture-required"], timeout: 30_000 });
}, TIMEOUT);

afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  speech?.close();
  if (app) await app.close();
});

/** Counts each <audio> play() that succeeded or failed, `ended` and `error` events, and the page's CSP violations. */
const AUDIO_SPIES = () => {
  const w = window as unknown as { audio: { played: number; refused: number; ended: number; errors: number }; violations: string[] };
  w.audio = { played: 0, refused: 0, ended: 0, errors: 0 };
  w.violations = [];
  document.addEventListener("securitypolicyviolation", (e) => w.violations.push(`${e.effectiveDirective} ${e.blockedURI}`));
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
    this.addEventListener("ended", () => w.audio.ended++, { once: true });
    this.addEventListener("error", () => w.audio.errors++, { once: true });
    const started = play.call(this);
    started.then(
      () => w.audio.played++,
      () => w.audio.refused++,
    );
    return started;
  };
};

test.skipIf(missing)(
  "/demo with voice: the server's speech plays to its end under the page's CSP (media-src blob:), with no error and no violation",
  async () => {
    const context = await browser!.newContext({ viewport: { width: 1000, height: 760 } });
    context.setDefaultTimeout(15_000);
    await context.addInitScript(fakeRecognition, { transcript: "How do I reset my password?" });
    await context.addInitScript(AUDIO_SPIES);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    await page.goto(`${app.url}/demo?voice=on`);
    await page.getByRole("button", { name: "Open chat" }).click();
    const before = speech.requests.length;
    await page.getByRole("button", { name: "Speak your question" }).click();
    await page.getByRole("button", { name: "Stop recording and send" }).click();
    await page.locator(".msg.user").filter({ hasText: "How do I reset my password?" }).waitFor();
    // The answer is asked of the speech server, then played: wait for the first sentence to end or fail.
    await page.waitForFunction(() => {
      const a = (window as unknown as { audio: { ended: number; errors: number; refused: number } }).audio;
      return a.ended + a.errors + a.refused > 0;
    });
    expect(speech.requests.slice(before).some((r) => r.path.endsWith("/audio/speech"))).toBe(true);
    const audio = await page.evaluate(() => (window as unknown as { audio: Record<string, number> }).audio);
    expect({ errors: audio.errors, refused: audio.refused }).toEqual({ errors: 0, refused: 0 });
    expect(audio.ended).toBeGreaterThan(0);
    expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
    expect(await page.locator(".msg.note").filter({ hasText: "Sorry" }).count()).toBe(0);
    await page.screenshot({ path: join(tmpdir(), "widget-demo-voice.png") });
    expect(errors).toEqual([]);
    await context.close();
    const policy = (await fetch(`${app.url}/demo?voice=on`)).headers.get("content-security-policy")!;
    expect(policy).toContain("media-src blob:");
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "a site whose policy refuses blob: media: each sentence is said with the browser's voice instead, and the console says why, once",
  async () => {
    const context = await browser!.newContext({ viewport: { width: 1000, height: 760 } });
    context.setDefaultTimeout(15_000);
    await context.addInitScript(fakeRecognition, { transcript: "How do I reset my password?" });
    await context.addInitScript(AUDIO_SPIES);
    await context.addInitScript(() => {
      const w = window as unknown as { spoken: string[] };
      w.spoken = [];
      speechSynthesis.speak = (u: SpeechSynthesisUtterance) => void w.spoken.push(u.text);
    });
    const page = await context.newPage();
    const warnings: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "warning") warnings.push(m.text());
    });
    await page.goto(`http://127.0.0.1:${site!.port}/`);
    await page.getByRole("button", { name: "Open chat" }).click();
    await page.getByRole("button", { name: "Speak your question" }).click();
    await page.getByRole("button", { name: "Stop recording and send" }).click();
    await page.waitForFunction(() => (window as unknown as { spoken: string[] }).spoken.length >= 2);
    const spoken = await page.evaluate(() => (window as unknown as { spoken: string[] }).spoken);
    expect(spoken[0]).toMatch(/^If you forgot your password/);
    expect(await page.evaluate(() => (window as unknown as { audio: { errors: number } }).audio.errors)).toBeGreaterThan(0);
    expect(warnings.filter((w) => w.includes("media-src blob:")).length).toBe(1);
    await context.close();
  },
  TIMEOUT,
);
