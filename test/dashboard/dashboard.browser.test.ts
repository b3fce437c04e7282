// The dashboard in a real headless Chromium (Debian's chromium, playwright-core): every page
// DASH builds is opened signed in, checked with axe-core (no serious or critical violation, light
// and dark), free of console errors and CSP violations, and photographed into docs/screenshots/.
// Then the newcomer flow (README "Dashboard"): sign in → create an agent → add a doc →
// copy the install snippet → a site carrying that snippet answers from the doc.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import {
  browserAvailable,
  browserMissingReason,
  launchBrowser,
  checkDashboardPage,
  SCREENSHOTS,
  unexpectedConsoleErrors,
  watchedPage,
  signInThroughForm,
} from "../support/browser.ts";
import { createCustomAction } from "../../src/integrations/custom-actions.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { type McpFixture, statelessJsonServer } from "../support/mcp-servers.ts";

const TIMEOUT = 90_000;
const missing = !browserAvailable();
if (missing) console.log(`dashboard.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser;
let mcp: McpFixture;
let org: Awaited<ReturnType<typeof seedOrg>>;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (missing) return;
  // Development mode: the outbound guard lets the connector reach the loopback MCP fixture.
  app = await serveTestApp({ NODE_ENV: "development" });
  mcp = await statelessJsonServer();
  org = await seedOrg(app, { name: "Acme Support", flags: ["mcp_external_servers"] });
  app.hosts.set("api.shop.example", ["93.184.216.34"]);
  await createCustomAction(app.deps, org.org_id, {
    slug: "refund_order",
    method: "POST",
    url: "https://api.shop.example/refunds",
    description: "Refunds an order by its number.",
    headers: { authorization: "Bearer x" },
    destructive: true,
  });
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await mcp?.stop();
  if (app) await app.close();
});

async function signedInPage(options: { colorScheme?: "light" | "dark" } = {}): Promise<{ page: Page; errors: string[] }> {
  const { context, page, errors } = await watchedPage(browser, { baseURL: app.url, colorScheme: options.colorScheme });
  contexts.push(context);
  await signInThroughForm(page, { email: org.admin_email, password: org.password });
  return { page, errors };
}

function nav(page: Page, name: string) {
  return page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name, exact: true });
}

test.skipIf(missing)(
  "sign in → create an agent → add a doc → copy the snippet → a site with that snippet answers from the doc",
  async () => {
    const { page, errors } = await signedInPage();
    // Create an agent through its form, make it the active one.
    await nav(page, "Agents").click();
    await page.getByLabel("Name", { exact: true }).fill("Helpdesk");
    await page.getByLabel("Instructions").fill("Answer from the knowledge base; be brief.");
    await page.getByRole("button", { name: "Create agent" }).click();
    await page.getByText("Agent “Helpdesk” created.").waitFor();
    await page.getByRole("button", { name: "Make this the active agent" }).click();
    await page.getByText("“Helpdesk” is now the active agent.").waitFor();
    // Add a document through the editor.
    await nav(page, "Knowledge base").click();
    await page.getByRole("link", { name: "New document" }).click();
    await page.getByLabel("Title").fill("Opening hours");
    await page
      .getByLabel("Text (markdown)")
      .fill("Our support desk is open **Monday to Friday, 9:00 to 17:00** Central European Time. On public holidays the desk is closed.");
    await page.getByRole("button", { name: "Create document" }).click();
    await page.getByText("“Opening hours” created and published.").waitFor();
    // Copy the install snippet.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.url });
    await nav(page, "Settings").click();
    await page.getByRole("button", { name: "Copy snippet" }).first().click();
    await page.getByRole("button", { name: "Copied" }).first().waitFor();
    const snippet = await page.evaluate(() => navigator.clipboard.readText());
    expect(snippet).toContain(`${app.url}/widget.js`);
    expect(snippet).toContain(org.widget_key);
    expect(unexpectedConsoleErrors(errors)).toEqual([]);

    // A customer's site (another loopback origin) carrying exactly that snippet.
    const site = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(`<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Shop</h1>${snippet}</body></html>`, {
          headers: { "content-type": "text/html; charset=utf-8" },
        }),
    });
    try {
      const visitor = await browser.newContext({ viewport: { width: 1000, height: 720 } });
      contexts.push(visitor);
      const shop = await visitor.newPage();
      await shop.goto(`http://127.0.0.1:${site.port}/`);
      await shop.getByRole("button", { name: "Open chat" }).click();
      await shop.getByLabel("Your message").fill("When is the support desk open?");
      await shop.getByLabel("Your message").press("Enter");
      await shop.locator(".msg.agent").first().waitFor();
      await shop.waitForFunction(() => document.querySelector("svc-agents-widget")?.shadowRoot?.querySelector(".log")?.getAttribute("aria-busy") === "false");
      expect(await shop.locator(".msg.agent").first().textContent()).toContain("Monday to Friday");
      await shop.screenshot({ path: join(SCREENSHOTS, "dashboard-newcomer-site.png") });
    } finally {
      site.stop(true);
    }
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "keyboard: the skip link comes first and is visible when focused; focus is always outlined",
  async () => {
    const { page } = await signedInPage();
    await page.goto("/dashboard/agents");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    const box = (await page.locator(".skip").boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("content");
    // Tab onwards into the page: every focused control carries a visible outline.
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press("Tab");
      const outline = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        return { tag: el.tagName, style: style.outlineStyle, width: style.outlineWidth };
      });
      expect({ tag: outline.tag, style: outline.style }).toEqual({ tag: outline.tag, style: "solid" });
      expect(outline.width).toBe("3px");
    }
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "a long action shows progress: Connect turns into a disabled “Connecting…” until the answer comes",
  async () => {
    const { page } = await signedInPage();
    // The request is held for a second on its way out, as a slow server's discovery would hold the answer.
    await page.route("**/dashboard/connectors", async (route) => {
      if (route.request().method() === "POST") await Bun.sleep(1000);
      await route.continue();
    });
    await page.goto("/dashboard/connectors");
    await page.getByLabel("Name", { exact: true }).fill("Second server");
    await page.getByLabel("Slug").fill("second_server");
    await page.getByLabel("Server URL").fill(mcp.url);
    // Clicked from the page itself and read back while the request is still held: Playwright's own
    // click and locators wait for the navigation to finish.
    const during = await page.evaluate(async () => {
      const button = document.querySelector("form[action='/dashboard/connectors'] button[type=submit]") as HTMLButtonElement;
      button.click();
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { text: button.textContent, disabled: button.disabled };
    });
    expect(during).toEqual({ text: "Connecting…", disabled: true });
    await page.getByText(/Connected: \d+ tools? discovered\./).waitFor();
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "every page: axe finds no serious or critical violation (light and dark), no console error; screenshots",
  async () => {
    for (const scheme of ["light", "dark"] as const) {
      const shoot = scheme === "light";
      const { page, errors } = await signedInPage({ colorScheme: scheme });
      const suffix = shoot ? "" : "-dark";
      await checkDashboardPage(page, `overview${suffix}`, true);

      await page.goto("/dashboard/agents");
      await checkDashboardPage(page, `agents${suffix}`, shoot);
      // A create form that failed validation: the error next to its field.
      if (shoot) {
        await page.getByRole("button", { name: "Create agent" }).click();
        await page.locator("#f-name-error").waitFor();
        await checkDashboardPage(page, "agents-field-error", true);
      }
      await page.goto("/dashboard/agents");
      await page.locator("tbody a").first().click();
      await checkDashboardPage(page, `agent-edit${suffix}`, shoot);
      await page.getByRole("link", { name: "Actions this agent may use" }).click();
      await checkDashboardPage(page, `agent-actions${suffix}`, shoot);

      await page.goto("/dashboard/knowledge");
      if (shoot) {
        // The upload: the script puts the chosen file's text into the form, which stays urlencoded.
        await page.setInputFiles("#f-file", {
          name: "shipping-faq.md",
          mimeType: "text/markdown",
          buffer: Buffer.from("# Shipping FAQ\n\nParcels leave our warehouse within two working days."),
        });
        await page.waitForFunction(() => (document.getElementById("f-content") as HTMLTextAreaElement).value.includes("Parcels leave"));
        await page.getByRole("button", { name: "Import file" }).click();
        await page.getByText("Imported “Shipping FAQ” from shipping-faq.md.").waitFor();
        await page.goto("/dashboard/knowledge");
      }
      await checkDashboardPage(page, `knowledge${suffix}`, shoot);
      await page.goto("/dashboard/knowledge/new");
      await page.getByLabel("Title").fill("Returns");
      await page
        .getByLabel("Text (markdown)")
        .fill(
          "# Returns\n\nSend items back within **30 days**.\n\n- Keep the receipt\n- Use the prepaid label\n\nSee [the policy](https://example.com/returns).",
        );
      await page.getByRole("button", { name: "Preview" }).click();
      await page.locator(".preview h1").waitFor();
      await checkDashboardPage(page, `knowledge-edit${suffix}`, shoot);
      await page.goto("/dashboard/knowledge/synonyms");
      if (shoot) {
        await page.getByLabel("Groups, one per line").fill("refund, money back\ninvoice, bill");
        await page.getByRole("button", { name: "Save synonyms" }).click();
        await page.getByText("Synonyms saved (2 groups).").waitFor();
      }
      await checkDashboardPage(page, `knowledge-synonyms${suffix}`, shoot);

      await page.goto("/dashboard/settings");
      await checkDashboardPage(page, `settings${suffix}`, shoot);

      await page.goto("/dashboard/connectors");
      if (shoot) {
        // Only the chosen method's credential fields show.
        expect(await page.getByLabel("Bearer token (bearer)").isVisible()).toBe(false);
        await page.getByLabel("Authentication").selectOption("bearer");
        expect(await page.getByLabel("Bearer token (bearer)").isVisible()).toBe(true);
        expect(await page.getByLabel("Access token (OAuth 2)").isVisible()).toBe(false);
        await page.getByLabel("Authentication").selectOption("none");
        await page.getByLabel("Name", { exact: true }).pressSequentially("Acme CRM");
        expect(await page.getByLabel("Slug").inputValue()).toBe("acme_crm");
        await page.getByLabel("Server URL").fill(mcp.url);
        await checkDashboardPage(page, "connectors", true);
        await page.getByRole("button", { name: "Connect" }).click();
        await page.getByText(/Connected: \d+ tools? discovered\./).waitFor();
        await checkDashboardPage(page, "connector", true);
      } else {
        await checkDashboardPage(page, "connectors-dark", false);
        await page.locator("tbody a").first().click();
        await checkDashboardPage(page, "connector-dark", false);
      }
      await page.goto("/dashboard/custom-actions");
      await checkDashboardPage(page, `custom-actions${suffix}`, shoot);
      await page.goto("/dashboard/webhooks");
      await checkDashboardPage(page, `webhooks${suffix}`, shoot);
      expect(unexpectedConsoleErrors(errors)).toEqual([]);
    }
  },
  TIMEOUT * 2,
);
