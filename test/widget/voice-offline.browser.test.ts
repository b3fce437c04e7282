// The browser's speech recognition failing (offline: Chromium fires `error` "network", then `end`),
// in a real headless Chromium with a stand-in recognition (test/support/fake-recognition.ts): the
// microphone goes back to idle and its timer stops, the customer is told what happened and offered
// typing (the message box has focus), and a video call says so instead of "listening" — in
// full screen, which covers the message box, the call ends. Skipped when chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { updateAgent } from "../../src/agents/service.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, launchBrowser, seriousAxeViolations } from "../support/browser.ts";
import { fakeRecognition } from "../support/fake-recognition.ts";

const TIMEOUT = 60_000;
const missing = !browserAvailable();
if (missing) console.log(`voice-offline.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser | undefined;
let site: ReturnType<typeof Bun.serve> | undefined;
const orgs: Record<string, Awaited<ReturnType<typeof seedOrg>>> = {};

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  for (const layout of ["inline", "fullscreen"] as const) {
    const org = await seedOrg(app, { name: `Offline ${layout}` });
    await updateAgent(app.deps, org.org_id, { kind: "system", name: "test" }, org.agent_id, {
      voice_config: { enabled: true, stt: "browser", tts: "browser", language: "en-US" },
      video_display_mode: layout,
    });
    orgs[layout] = org;
  }
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const org = orgs[new URL(req.url).pathname.slice(1)] ?? orgs.inline!;
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
<script src="${app.url}/widget.js" data-key="${org.widget_key}" data-org="${org.org_id}" async></script></head><body><main><h1>Shop</h1></main></body></html>`;
      return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  if (app) await app.close();
});

async function offlinePage(layout: "inline" | "fullscreen"): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await browser!.newContext({ viewport: { width: 1000, height: 760 } });
  context.setDefaultTimeout(15_000);
  await context.addInitScript(fakeRecognition, { error: "network", errorAfterMs: 400 });
  // headless Chromium has no voices: the spoken apology is only recorded.
  await context.addInitScript(() => {
    const w = window as unknown as { spoken: string[] };
    w.spoken = [];
    speechSynthesis.speak = (u: SpeechSynthesisUtterance) => void w.spoken.push(u.text);
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${site!.port}/${layout}`);
  await page.getByRole("button", { name: "Open chat" }).click();
  await page.getByRole("button", { name: "Speak your question" }).waitFor();
  return { page, errors, close: () => context.close() };
}

/** The element focused inside the widget, as "tag#id". */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.querySelector("svc-agents-widget")?.shadowRoot?.activeElement;
    return el ? `${el.tagName.toLowerCase()}#${el.id}` : null;
  });

test.skipIf(missing)(
  "recognition fails with `network`: the microphone is idle again, the timer stopped, the failure said and typing offered",
  async () => {
    const { page, errors, close } = await offlinePage("inline");
    await page.getByRole("button", { name: "Speak your question" }).click();
    expect(await page.getByRole("button", { name: "Stop recording and send" }).getAttribute("aria-pressed")).toBe("true");
    const note = page.locator(".msg.note").filter({ hasText: "speech recognition" });
    await note.waitFor();
    expect(await note.textContent()).toMatch(/could not reach its speech service/);
    expect(await note.textContent()).toContain("type your question");
    // The controls are back: the microphone is idle, its meter and timer hidden and not counting.
    const mic = page.getByRole("button", { name: "Speak your question" });
    expect(await mic.getAttribute("aria-pressed")).toBe("false");
    expect(await page.locator(".meter").isHidden()).toBe(true);
    await page.waitForTimeout(1500);
    expect(await page.locator(".timer").textContent()).toBe("0:00");
    expect(await focused(page)).toBe("textarea#svc-input");
    const spoken = await page.evaluate(() => (window as unknown as { spoken: string[] }).spoken);
    expect(spoken.some((s) => s.includes("could not reach its speech service"))).toBe(true);
    expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
    await page.screenshot({ path: join(tmpdir(), "widget-voice-offline.png") });
    // Typing works at once; the microphone can be tried again.
    await page.keyboard.type("Hello");
    expect(await page.getByLabel("Your message").inputValue()).toBe("Hello");
    await mic.click();
    expect(await page.evaluate(() => (window as unknown as { recognitionStarts: number }).recognitionStarts)).toBe(2);
    expect(errors).toEqual([]);
    await close();
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "in a video call the call view says what failed instead of listening; in full screen the call ends so the message box is reachable",
  async () => {
    {
      const { page, errors, close } = await offlinePage("inline");
      await page.getByRole("button", { name: "Video call" }).click();
      const call = page.getByRole("region", { name: /Video call with/ });
      const talk = call.getByRole("button", { name: "Speak to the agent" });
      await talk.click();
      expect(await talk.getAttribute("aria-pressed")).toBe("true");
      await call.locator(".captions").filter({ hasText: "could not reach its speech service" }).waitFor();
      expect(await call.locator(".captions").textContent()).not.toContain("listening");
      expect(await talk.getAttribute("aria-pressed")).toBe("false");
      expect(await call.isVisible()).toBe(true);
      expect(await focused(page)).toBe("textarea#svc-input");
      // The longer caption does not push the message box out of the panel.
      const [input, panel] = [(await page.getByLabel("Your message").boundingBox())!, (await page.getByRole("dialog").boundingBox())!];
      expect(input.y + input.height).toBeLessThanOrEqual(panel.y + panel.height);
      const [captions, tools] = [(await call.locator(".captions").boundingBox())!, (await call.locator(".call-tools").boundingBox())!];
      expect(captions.y + captions.height).toBeLessThanOrEqual(tools.y);
      expect(tools.y + tools.height).toBeLessThanOrEqual((await call.boundingBox())!.y + (await call.boundingBox())!.height);
      expect(await call.locator(".captions").evaluate((el) => el.scrollHeight <= el.clientHeight)).toBe(true);
      expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
      await page.screenshot({ path: join(tmpdir(), "widget-voice-offline-inline.png") });
      expect(errors).toEqual([]);
      await close();
    }
    {
      const { page, errors, close } = await offlinePage("fullscreen");
      await page.getByRole("button", { name: "Video call" }).click();
      const call = page.getByRole("dialog", { name: /Video call with/ });
      await call.getByRole("button", { name: "Speak to the agent" }).click();
      await page.locator(".msg.note").filter({ hasText: "could not reach its speech service" }).waitFor();
      await call.waitFor({ state: "hidden" });
      expect(await focused(page)).toBe("textarea#svc-input");
      expect(await page.getByRole("button", { name: "Speak your question" }).getAttribute("aria-pressed")).toBe("false");
      await page.screenshot({ path: join(tmpdir(), "widget-voice-offline-fullscreen.png") });
      expect(errors).toEqual([]);
      await close();
    }
  },
  TIMEOUT,
);
