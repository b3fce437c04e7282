// Voice in the widget, in a real headless Chromium with a fake microphone that says "How do I
// reset my password?" (a WAV made by espeak-ng): the widget records, the STT server on loopback
// receives a real WebM of about the recording's length, the transcript becomes the customer's
// message, the answer comes from the right document and is spoken — by the server's voice (the
// <audio> element plays each sentence to its end) or by the browser's speechSynthesis (a spy sees
// the answer's sentences; Stop cancels). A failing speech server gives a written and spoken apology.
// Skipped when chromium or espeak-ng is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { updateAgent } from "../../src/agents/service.ts";
import { createDoc } from "../../src/knowledge/docs.ts";
import { audioInfo } from "../../src/sdk/audio.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, CHROMIUM_ARGS, CHROMIUM_PATH, SCREENSHOTS, seriousAxeViolations } from "../support/browser.ts";
import { fakeSpeech, type FakeSpeech } from "../support/fake-speech.ts";
import { en } from "../../src/i18n/en.ts";

const TIMEOUT = 60_000;
const espeak = spawnSync("espeak-ng", ["--version"]).status === 0;
const missing = !browserAvailable() || !espeak;
if (missing) console.log(`widget-ui voice.browser.test.ts: ${!espeak ? "espeak-ng is not installed (apt-get install espeak-ng)" : browserMissingReason()}`);

let app: ServedTestApp;
let speech: FakeSpeech;
let browser: Browser | undefined;
let site: ReturnType<typeof Bun.serve> | undefined;
let siteOrigin: string;
const orgs: Record<string, Awaited<ReturnType<typeof seedOrg>>> = {};
const LAYOUTS = ["inline", "pip", "fullscreen"] as const;

async function voiceOrg(name: string, tts: "server" | "browser", patch: Record<string, unknown> = {}) {
  const org = await seedOrg(app, { name });
  await createDoc(app.deps, org.org_id, {
    title: "Resetting your password",
    url: "https://help.shop.example/articles/reset-password",
    body: "To reset your password, open the sign-in page and choose Forgot password. We email you a reset link that works for 60 minutes.",
  });
  await createDoc(app.deps, org.org_id, {
    title: "Refunds",
    url: "https://help.shop.example/refunds",
    body: "Refunds are paid within 14 days to the card you used.",
  });
  await updateAgent(app.deps, org.org_id, { kind: "system", name: "test" }, org.agent_id, {
    voice_config: { enabled: true, stt: "server", tts, language: "en-US" },
    ...patch,
  });
  return org;
}

beforeAll(async () => {
  if (missing) return;
  const dir = mkdtempSync(join(tmpdir(), "voice-"));
  const wav = join(dir, "question.wav");
  expect(spawnSync("espeak-ng", ["-w", wav, "How do I reset my password?"]).status).toBe(0);
  speech = await fakeSpeech({ transcript: "How do I reset my password?" });
  app = await serveTestApp({ STT_BASE_URL: speech.baseUrl, TTS_BASE_URL: speech.baseUrl });
  orgs.server = await voiceOrg("Voice shop", "server");
  orgs.browser = await voiceOrg("Browser voice shop", "browser");
  for (const layout of LAYOUTS)
    orgs[layout] = await voiceOrg(`Video ${layout}`, "server", {
      video_display_mode: layout,
      avatar_config: { primary_color: "#7a1fa2", text_color: "#ffffff" },
    });
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const org = orgs[new URL(req.url).pathname.slice(1)] ?? orgs.server!;
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
<script src="${app.url}/widget.js" data-key="${org.widget_key}" data-org="${org.org_id}" async></script></head><body><h1>Shop</h1></body></html>`;
      return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  siteOrigin = `http://127.0.0.1:${site.port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      ...CHROMIUM_ARGS,
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-audio-capture=${wav}`,
      "--autoplay-policy=no-user-gesture-required",
    ],
    timeout: 30_000,
  });
}, TIMEOUT);

afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  speech?.close();
  if (app) await app.close();
});

/** Counts <audio> plays and ends, and spies on speechSynthesis (headless Chromium has no voices). */
const SPIES = () => {
  const w = window as unknown as Record<string, unknown>;
  w.played = 0;
  w.ended = 0;
  w.spoken = [] as string[];
  w.cancelled = 0;
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
    (w.played as number)++;
    this.addEventListener("ended", () => (w.ended = (w.ended as number) + 1), { once: true });
    return play.call(this);
  };
  speechSynthesis.speak = (u: SpeechSynthesisUtterance) => void (w.spoken as string[]).push(u.text);
  speechSynthesis.cancel = () => void (w.cancelled = (w.cancelled as number) + 1);
};

async function openWidget(path: string): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await browser!.newContext({ viewport: { width: 1000, height: 720 } });
  context.setDefaultTimeout(15_000);
  await context.addInitScript(SPIES);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${siteOrigin}${path}`);
  await page.getByRole("button", { name: "Open chat" }).click();
  await page.getByRole("button", { name: "Speak your question" }).waitFor();
  return { page, errors, close: () => context.close() };
}

/** Taps the microphone, lets the fake microphone speak, taps again to send. */
async function speak(page: Page, seconds: number, shot?: string) {
  const mic = page.getByRole("button", { name: "Speak your question" });
  await mic.click();
  const recording = page.getByRole("button", { name: "Stop recording and send" });
  expect(await recording.getAttribute("aria-pressed")).toBe("true");
  await page.waitForTimeout(seconds * 1000);
  if (shot) {
    // While recording: the level meter moves with the fake microphone, the timer counts.
    expect(await page.getByRole("timer").textContent()).toMatch(/^0:0[1-9]$/);
    // The fake microphone speaks with pauses between words: the meter is seen above zero at some
    // moment, not necessarily at this one.
    await page.waitForFunction(() => {
      const span = document.querySelector("svc-agents-widget")?.shadowRoot?.querySelector(".level > span") as HTMLElement | null;
      return span !== null && span !== undefined && span.style.width !== "" && span.style.width !== "0%";
    });
    expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, shot) });
  }
  await recording.click();
}

const idle = (page: Page) =>
  page.waitForFunction(() => document.querySelector("svc-agents-widget")?.shadowRoot?.querySelector(".log")?.getAttribute("aria-busy") === "false");

test.skipIf(missing)(
  "server speech: the recording reaches the STT server as a WebM of about its length, the transcript is the customer's message, the answer comes from the right doc and each sentence is played to its end",
  async () => {
    const { page, errors, close } = await openWidget("/server");
    const before = speech.requests.length;
    await speak(page, 2.5, "widget-voice-recording.png");
    await page.locator(".msg.user").filter({ hasText: "How do I reset my password?" }).waitFor();
    await idle(page);
    const sent = speech.requests.slice(before).find((r) => r.path.endsWith("/transcriptions"))!;
    expect([...sent.file!.bytes.subarray(0, 4)]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
    const info = audioInfo(sent.file!.bytes)!;
    expect(info.container).toBe("webm");
    expect(info.seconds).toBeGreaterThan(1.5);
    expect(info.seconds).toBeLessThan(5);
    const answer = page.locator(".msg.agent").last();
    expect(await answer.locator(".text").textContent()).toContain("Forgot password");
    expect(await answer.locator(".text").textContent()).not.toContain('From "');
    expect(await answer.getByRole("link", { name: "Resetting your password" }).count()).toBe(1);
    // Spoken sentence by sentence (each requested as soon as it is whole, so they may reach the
    // server in either order), never a URL; each played to its end.
    await page.waitForFunction(() => (window as unknown as { ended: number }).ended >= 2);
    const said = speech.requests
      .slice(before)
      .filter((r) => r.path.endsWith("/speech"))
      .map((r) => r.fields.input as string);
    expect(said.sort()).toEqual([
      "To reset your password, open the sign-in page and choose Forgot password.",
      "We email you a reset link that works for 60 minutes.",
    ]);
    for (const s of said) expect(s).not.toMatch(/https?:|help\.shop\.example/);
    expect(await page.evaluate(() => (window as unknown as { played: number }).played)).toBe(said.length);
    await page.screenshot({ path: join(SCREENSHOTS, "widget-voice.png") });
    expect(errors).toEqual([]);
    await close();
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "browser speech: speechSynthesis.speak gets the answer's sentences; Stop cancels the speech",
  async () => {
    const { page, errors, close } = await openWidget("/browser");
    await speak(page, 2);
    await idle(page);
    const text = (await page.locator(".msg.agent .text").last().textContent())!;
    const spoken = await page.evaluate(() => (window as unknown as { spoken: string[] }).spoken);
    expect(spoken.length).toBeGreaterThan(1);
    expect(spoken.join(" ")).toBe(text.replace(/\s+/g, " ").trim());
    // The spy never ends an utterance: the speech is still going, and Stop interrupts it.
    const stop = page.getByRole("button", { name: "Stop" });
    expect(await stop.isVisible()).toBe(true);
    await stop.click();
    expect(await page.evaluate(() => (window as unknown as { cancelled: number }).cancelled)).toBeGreaterThan(0);
    expect(await stop.isVisible()).toBe(false);
    // Speaking again interrupts too (barge-in).
    const cancelled = await page.evaluate(() => (window as unknown as { cancelled: number }).cancelled);
    await page.getByRole("button", { name: "Speak your question" }).click();
    expect(await page.evaluate(() => (window as unknown as { cancelled: number }).cancelled)).toBeGreaterThan(cancelled);
    await page.getByRole("button", { name: "Stop recording and send" }).click();
    await idle(page);
    expect(errors).toEqual([]);
    await close();
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "the STT server failing: a written and spoken apology that offers a person, never a silent failure",
  async () => {
    const { page, errors, close } = await openWidget("/server");
    speech.next = { status: 500 };
    await speak(page, 1);
    const note = page.locator(".msg.note").filter({ hasText: "Sorry, that didn't work" });
    await note.waitFor();
    expect(await note.textContent()).toContain("Talk to a person");
    const spoken = await page.evaluate(() => (window as unknown as { spoken: string[] }).spoken);
    expect(spoken.some((s) => s.startsWith("Sorry, that didn't work"))).toBe(true);
    expect(await page.locator(".msg.user").count()).toBe(0);
    expect(errors).toEqual([]);
    await close();
  },
  TIMEOUT,
);

for (const layout of LAYOUTS)
  test.skipIf(missing)(
    `video, ${layout}: the call view shows the avatar, animates it while the answer's audio plays, captions the answer, is axe-clean${layout === "fullscreen" ? "; Escape leaves" : ""}`,
    async () => {
      const { page, errors, close } = await openWidget(`/${layout}`);
      await page.getByRole("button", { name: "Video call" }).click();
      const call = page.getByRole(layout === "inline" ? "region" : "dialog", { name: "Video call with Support agent" });
      expect(await call.isVisible()).toBe(true);
      expect(await call.locator(".face").isVisible()).toBe(true);
      const talk = page.getByRole("button", { name: "Speak to the agent" });
      await talk.click();
      await page.waitForTimeout(1500);
      const before = speech.requests.length;
      await talk.click();
      // The answer asked for in mode video: written for the ear, captioned, spoken.
      await call.locator(".captions").filter({ hasText: "Forgot password" }).waitFor();
      await page.waitForFunction(() => {
        const el = document.querySelector("svc-agents-widget")!.shadowRoot!.querySelector(".call") as HTMLElement;
        return el.classList.contains("speaking") && Number(el.style.getPropertyValue("--level")) > 0.05;
      });
      expect(await page.locator(".msg.user").count()).toBe(layout === "inline" ? 1 : 1);
      expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, `widget-video-${layout}.png`) });
      expect(speech.requests.slice(before).some((r) => r.path.endsWith("/speech"))).toBe(true);
      if (layout === "fullscreen") {
        await page.keyboard.press("Escape");
        expect(await call.isVisible()).toBe(false);
        expect(await page.getByRole("dialog", { name: "Support agent" }).isVisible()).toBe(true);
      }
      expect(errors).toEqual([]);
      await close();
    },
    TIMEOUT,
  );

test.skipIf(missing)(
  "the TTS server failing: the answer stays written, and an apology offering a person is written and spoken",
  async () => {
    const { page, errors, close } = await openWidget("/server");
    // The transcription succeeds; the first speech request gets a 500.
    let failed = false;
    speech.onRequest = (r) => {
      if (!failed && r.path.endsWith("/speech")) {
        failed = true;
        speech.next = { status: 500 };
      }
    };
    await speak(page, 1);
    await page.locator(".msg.agent").filter({ hasText: "Forgot password" }).waitFor();
    const note = page.locator(".msg.note").filter({ hasText: "Sorry, that didn't work" });
    await note.waitFor();
    // The service's own message is for the operator; the customer is told the catalogue's sentence.
    expect(await note.textContent()).toContain(en["widget.voice_service"]);
    const spoken = await page.evaluate(() => (window as unknown as { spoken: string[] }).spoken);
    expect(spoken.some((s) => s.startsWith("Sorry, that didn't work"))).toBe(true);
    speech.onRequest = undefined;
    expect(errors).toEqual([]);
    await close();
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "a browser that can neither record nor recognise speech: no microphone button, and the panel says voice is not available",
  async () => {
    const context = await browser!.newContext();
    await context.addInitScript(() => {
      delete (window as unknown as Record<string, unknown>).MediaRecorder;
      delete (window as unknown as Record<string, unknown>).webkitSpeechRecognition;
      delete (window as unknown as Record<string, unknown>).SpeechRecognition;
    });
    const page = await context.newPage();
    await page.goto(`${siteOrigin}/server`);
    await page.getByRole("button", { name: "Open chat" }).click();
    await page.getByRole("status").filter({ hasText: "Voice is not available in this browser" }).waitFor();
    expect(await page.getByRole("button", { name: "Speak your question" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Video call" }).count()).toBe(0);
    await context.close();
  },
  TIMEOUT,
);

// Last: it spends this key's voice quota for the rest of the file (the test clock never moves on).
test.skipIf(missing)(
  "a burst past the voice limit: 429, and the widget writes and speaks how long to wait",
  async () => {
    const { page, errors, close } = await openWidget("/server");
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${app.url}/api/sdk/voice/speech`, {
        method: "POST",
        headers: { authorization: `Bearer ${orgs.server!.widget_key}`, "content-type": "application/json" },
        body: JSON.stringify({ text: "Hi." }),
      });
      await res.arrayBuffer();
      if (res.status === 429) break;
    }
    await speak(page, 1);
    const note = page.locator(".msg.note").filter({ hasText: "too many voice messages" });
    await note.waitFor();
    // The wait is what is left of the limiter's window at the test clock's moment: 1 to 60 s, "1 second" when it is 1.
    expect(await note.textContent()).toMatch(/Please wait (1 second|([2-9]|[1-5]\d|60) seconds)\./);
    const spoken = await page.evaluate(() => (window as unknown as { spoken: string[] }).spoken);
    expect(spoken.some((s) => s.toLowerCase().includes("too many voice messages"))).toBe(true);
    expect(await page.locator(".msg.user").count()).toBe(0);
    expect(errors).toEqual([]);
    await close();
  },
  TIMEOUT,
);
