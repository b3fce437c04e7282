// The widget's colours as an admin sets them, in a real headless Chromium: a primary colour saved
// alone on the agent's page (the text colour left empty) colours the widget's launcher, header
// and buttons, with black or white text, whichever reads better on it (WCAG contrast); where the
// colour is text on the panel (links, secondary buttons) it is a shade that reads on the light and
// the dark background; axe-core finds no serious or critical violation in either scheme. The empty
// colour fields say what empty means instead of showing a colour that looks filled in. Skipped when
// chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { readAgent, updateAgent } from "../../src/agents/service.ts";
import { createDoc } from "../../src/knowledge/docs.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, launchBrowser, seriousAxeViolations, signInThroughForm, watchedPage } from "../support/browser.ts";

const TIMEOUT = 90_000;
const missing = !browserAvailable();
if (missing) console.log(`look.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser | undefined;
let site: ReturnType<typeof Bun.serve> | undefined;
const orgs: Record<string, Awaited<ReturnType<typeof seedOrg>>> = {};

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  for (const name of ["yellow", "purple"]) {
    const org = await seedOrg(app, { name: `Shop ${name}` });
    await createDoc(app.deps, org.org_id, {
      title: "Resetting your password",
      url: "https://help.shop.example/articles/reset-password",
      body: "To reset your password, open the sign-in page and choose Forgot password. We email you a reset link that works for 60 minutes.",
    });
    orgs[name] = org;
  }
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const org = orgs[new URL(req.url).pathname.slice(1)]!;
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

/** WCAG contrast of two computed `rgb(…)` colours. */
function contrast(a: string, b: string): number {
  const lum = (rgb: string) => {
    const [r, g, bl] = rgb
      .match(/\d+(\.\d+)?/g)!
      .slice(0, 3)
      .map((v) => {
        const c = Number(v) / 255;
        return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}
const colours = (l: Locator) => l.evaluate((el) => ({ bg: getComputedStyle(el).backgroundColor, fg: getComputedStyle(el).color }));

async function openWidget(name: string, colorScheme: "light" | "dark"): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser!.newContext({ viewport: { width: 1000, height: 760 }, colorScheme, reducedMotion: "reduce" });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${site!.port}/${name}`);
  await page.getByRole("button", { name: "Open chat" }).waitFor();
  return { page, close: () => context.close() };
}

test.skipIf(missing)(
  "a primary colour saved alone on the agent's page colours the widget, with black text on a light colour; readable in light and dark",
  async () => {
    const org = orgs.yellow!;
    const { page: dash } = await watchedPage(browser!, { baseURL: app.url });
    await signInThroughForm(dash, { email: org.admin_email, password: org.password });
    await dash.goto(`/dashboard/agents/${org.agent_id}`);
    // The empty fields say what empty means; their placeholders do not look like colours.
    for (const label of ["Primary colour", "Text colour"]) {
      const field = dash.getByLabel(label, { exact: true });
      expect(await field.inputValue()).toBe("");
      expect(await field.getAttribute("placeholder")).not.toMatch(/#[0-9a-f]{3,6}/i);
    }
    expect(await dash.locator("#f-look_text_color-hint").textContent()).toContain("black or white");
    await dash.getByLabel("Text colour", { exact: true }).scrollIntoViewIfNeeded();
    await dash.screenshot({ path: join(tmpdir(), "dashboard-agent-look.png") });
    await dash.getByLabel("Primary colour", { exact: true }).fill("#ffd400");
    await dash.getByRole("button", { name: "Save changes" }).click();
    await dash.getByText("Changes saved.").waitFor();
    expect((await readAgent(app.deps, org.org_id, org.agent_id)).avatarConfig).toEqual({ primary_color: "#ffd400" });
    await dash.context().close();

    for (const scheme of ["light", "dark"] as const) {
      const { page, close } = await openWidget("yellow", scheme);
      const launcher = page.getByRole("button", { name: "Open chat" });
      await page.waitForFunction(() => {
        const host = document.querySelector("svc-agents-widget") as HTMLElement | null;
        return host?.style.getPropertyValue("--sa-accent") !== "";
      });
      expect(await colours(launcher)).toEqual({ bg: "rgb(255, 212, 0)", fg: "rgb(0, 0, 0)" });
      await launcher.click();
      await page.getByLabel("Your message").fill("How do I reset my password?");
      await page.getByLabel("Your message").press("Enter");
      await page.getByRole("group", { name: "Did that help?" }).waitFor();
      const send = await colours(page.getByRole("button", { name: "Send" }));
      expect(send).toEqual({ bg: "rgb(255, 212, 0)", fg: "rgb(0, 0, 0)" });
      const header = await colours(page.locator("header"));
      expect(contrast(header.bg, header.fg)).toBeGreaterThanOrEqual(4.5);
      // The colour as text on the panel: a shade that reads on this scheme's background.
      const panelBg = (await colours(page.getByRole("dialog"))).bg;
      for (const l of [page.getByRole("button", { name: "Talk to a person" }), page.getByRole("link", { name: "Resetting your password" })])
        expect(contrast((await colours(l)).fg, panelBg)).toBeGreaterThanOrEqual(4.5);
      await page.getByLabel("Your message").blur();
      expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
      await page.screenshot({ path: join(tmpdir(), `widget-primary-only-${scheme}.png`) });
      await close();
    }
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "a dark primary colour alone gets white text; a text colour set with it is kept",
  async () => {
    const org = orgs.purple!;
    await updateAgent(app.deps, org.org_id, { kind: "system", name: "test" }, org.agent_id, { avatar_config: { primary_color: "#7a1fa2" } });
    let { page, close } = await openWidget("purple", "light");
    await page.waitForFunction(() => (document.querySelector("svc-agents-widget") as HTMLElement).style.getPropertyValue("--sa-accent") !== "");
    expect(await colours(page.getByRole("button", { name: "Open chat" }))).toEqual({ bg: "rgb(122, 31, 162)", fg: "rgb(255, 255, 255)" });
    await close();
    await updateAgent(app.deps, org.org_id, { kind: "system", name: "test" }, org.agent_id, {
      avatar_config: { primary_color: "#7a1fa2", text_color: "#fff3b0" },
    });
    ({ page, close } = await openWidget("purple", "light"));
    await page.waitForFunction(() => (document.querySelector("svc-agents-widget") as HTMLElement).style.getPropertyValue("--sa-accent") !== "");
    expect(await colours(page.getByRole("button", { name: "Open chat" }))).toEqual({ bg: "rgb(122, 31, 162)", fg: "rgb(255, 243, 176)" });
    await close();
  },
  TIMEOUT,
);
