// The public help centre in a real headless Chromium, signed out: the home page, a collection, an
// article with a table, a code block and an image, and a search, by following links and using the
// search box as a customer would. No serious or critical axe violation in light and dark, no
// console or CSP error, and no request to any origin but the help centre's own (the article's
// image lives on another server: the help centre fetched it through the outbound guard).
// Photographed into docs/screenshots/ (help-centre-*.png).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { serveTestApp, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, launchBrowser, SCREENSHOTS, seriousAxeViolations, watchedPage } from "../support/browser.ts";
import { seedHelpCentre } from "./seed.ts";

const TIMEOUT = 120_000;
const missing = !browserAvailable();
if (missing) console.log(`help-centre.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser;
let images: ReturnType<typeof Bun.serve>;
let seed: Awaited<ReturnType<typeof seedHelpCentre>>;
const contexts: BrowserContext[] = [];
// A 4×4 PNG.
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAFklEQVR4nGNkYPjPwMDAxMDAwMDAAAAMBAEAuEKk2QAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);

beforeAll(async () => {
  if (missing) return;
  images = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(PNG, { headers: { "content-type": "image/png" } }) });
  // Development: the guard reaches the loopback image server (README "Configuration").
  app = await serveTestApp({ NODE_ENV: "development" });
  seed = await seedHelpCentre(app, { imageUrl: `http://127.0.0.1:${images.port}/refund.png` });
  // The widget's look brands the header (src/helpcentre/brand.ts): axe checks its contrast too.
  const { updateAgent } = await import("../../src/agents/service.ts");
  await updateAgent(app.deps, seed.orgId, { kind: "system", name: "test" }, seed.org.agent_id, { avatar_config: { primary_color: "#0f766e" } });
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  images?.stop(true);
  if (app) await app.close();
});

async function clean(page: import("playwright-core").Page, name: string, scheme: string) {
  expect({ page: name, violations: await seriousAxeViolations(page) }).toEqual({ page: name, violations: [] });
  await page.screenshot({ path: join(SCREENSHOTS, `help-centre-${name}${scheme === "dark" ? "-dark" : ""}.png`), fullPage: true });
}

for (const scheme of ["light", "dark"] as const)
  test.skipIf(missing)(
    `home, collection, article and search, signed out, ${scheme}`,
    async () => {
      const { context, page, errors } = await watchedPage(browser, { baseURL: app.url, colorScheme: scheme });
      contexts.push(context);
      const requested: string[] = [];
      page.on("request", (r) => requested.push(r.url()));
      await page.addInitScript(() => {
        document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP ${e.effectiveDirective} ${e.blockedURI}`));
      });

      await page.goto(`/help/${seed.slug}/`); // redirected to /en/
      await page.getByRole("heading", { name: "Acme Outdoor help centre" }).waitFor();
      await clean(page, "home", scheme);

      await page.getByRole("link", { name: "billing" }).click();
      await page.getByRole("heading", { name: "billing", level: 1 }).waitFor();
      expect(await page.locator("main ul.list > li").count()).toBe(2);
      await clean(page, "collection", scheme);

      await page.getByRole("link", { name: "Getting a refund" }).click();
      await page.getByRole("heading", { name: "Getting a refund", level: 1 }).waitFor();
      const table = page.getByRole("table");
      expect(await table.getByRole("row").count()).toBe(3);
      expect(await page.locator("pre code").textContent()).toContain("curl -X POST");
      const image = page.getByRole("img", { name: "The refund button" });
      await image.scrollIntoViewIfNeeded();
      await page.waitForFunction(() => {
        const img = document.querySelector("article img") as HTMLImageElement | null;
        return img?.complete && img.naturalWidth === 4;
      });
      expect(await page.getByRole("navigation", { name: "Breadcrumbs" }).getByRole("link").count()).toBe(2);
      await clean(page, "article", scheme);

      await page.getByRole("searchbox", { name: "Search the help centre" }).fill("refund card");
      await page.getByRole("button", { name: "Search" }).click();
      await page.getByRole("heading", { name: "Results for “refund card”" }).waitFor();
      expect(await page.getByRole("main").getByRole("link", { name: "Getting a refund" }).count()).toBe(1);
      expect(await page.locator("main mark").count()).toBeGreaterThan(0);
      expect(await page.getByRole("main").getByText("Refund policy draft").count()).toBe(0);
      await clean(page, "search", scheme);

      expect(errors).toEqual([]);
      const foreign = requested.filter((u) => !u.startsWith(`${app.url}/`) && !u.startsWith("data:"));
      expect(foreign).toEqual([]);
      expect(requested.some((u) => u.includes("/media/"))).toBe(true);
    },
    TIMEOUT,
  );
