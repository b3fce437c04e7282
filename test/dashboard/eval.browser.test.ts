// "Test your agent" in a real headless Chromium: a question file chosen in the file field fills
// the set (the page's script), the set is run, a document is edited, the set is run again and the
// run page compares the two. The knowledge gaps page lists an escalated question with its
// near-duplicate. Each page is checked with axe-core in light and dark and photographed into
// docs/screenshots/ (the gaps page by knowledge-gaps.browser.test.ts).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createDoc, updateDoc } from "../../src/knowledge/docs.ts";
import {
  browserAvailable,
  browserMissingReason,
  checkDashboardPage,
  launchBrowser,
  signInThroughForm,
  unexpectedConsoleErrors,
  watchedPage,
} from "../support/browser.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";

const TIMEOUT = 180_000;
const missing = !browserAvailable();
if (missing) console.log(`eval.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser;
let org: Awaited<ReturnType<typeof seedOrg>>;
const contexts: BrowserContext[] = [];
const ids: Record<string, string> = {};

const SET = [
  { question: "How do I reset my password?", expected_doc: "Resetting your password" },
  { question: "How long does shipping take?", expected_doc: "Shipping times" },
  { question: "Can I pay with bitcoin?", expected_phrase: "bitcoin" },
  { question: "Can I change my billing address on an invoice?", expected_doc: "Invoices and billing" },
];

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp({ NODE_ENV: "development", LLM_PROVIDER: "builtin" });
  org = await seedOrg(app, { name: "Acme Support", email: "ada@acme.example" });
  ids.password = (
    await createDoc(app.deps, org.org_id, {
      title: "Resetting your password",
      body: "## Reset\nChoose Forgot password on the sign-in page and follow the emailed link.",
    })
  ).id;
  ids.shipping = (
    await createDoc(app.deps, org.org_id, { title: "Shipping times", body: "## How long shipping takes\nShipping takes three to five working days." })
  ).id;
  ids.billing = (
    await createDoc(app.deps, org.org_id, {
      title: "Invoices and billing",
      body: "## Billing address\nChange the billing address on your invoices under Account, Billing.",
    })
  ).id;
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  if (app) await app.close();
});

async function signedIn(colorScheme: "light" | "dark"): Promise<{ page: Page; errors: string[] }> {
  const { context, page, errors } = await watchedPage(browser, { baseURL: app.url, colorScheme });
  contexts.push(context);
  await signInThroughForm(page, { email: org.admin_email, password: org.password }, "/signin");
  return { page, errors };
}

test.skipIf(missing)(
  "a set run, a document edited, the set run again: the run page compares the two (light and dark)",
  async () => {
    const { page, errors } = await signedIn("light");
    await page.goto("/dashboard/agents");
    await page.getByRole("link", { name: "Test your agent" }).click();
    await page.getByRole("heading", { name: "Test your agent" }).waitFor();
    await page
      .getByLabel("Question file (optional)")
      .setInputFiles([{ name: "questions.jsonl", mimeType: "application/jsonl", buffer: Buffer.from(SET.map((q) => JSON.stringify(q)).join("\n")) }]);
    await page.waitForFunction(() => (document.querySelector("textarea[name=content]") as HTMLTextAreaElement).value.includes("bitcoin"));
    await checkDashboardPage(page, "eval-form", true);
    await page.getByRole("button", { name: "Run the questions" }).click();
    await page.getByText("Run finished: 4 questions.").waitFor();
    await page.getByText("The first run of this agent").waitFor();
    await checkDashboardPage(page, "eval-first-run", true);

    // The shipping page loses its answer; a page about bitcoin appears.
    await updateDoc(app.deps, org.org_id, ids.shipping!, { title: "Gift cards", body: "Gift cards never expire." });
    await createDoc(app.deps, org.org_id, { title: "Paying with bitcoin", body: "We accept bitcoin payments at checkout." });
    await page.getByRole("button", { name: "Run these questions again" }).click();
    await page.getByRole("heading", { name: "Since the previous run" }).waitFor();
    const changes = page.locator("section", { has: page.getByRole("heading", { name: "Since the previous run" }) });
    expect(await changes.getByRole("listitem").allTextContents()).toEqual(["Can I pay with bitcoin?", "How long does shipping take?"]);
    expect(await page.getByRole("row", { name: /Right page first/ }).textContent()).toContain("−33.3 points");
    await checkDashboardPage(page, "eval-comparison", true);
    const url = page.url();

    const dark = await signedIn("dark");
    await dark.page.goto(url);
    await dark.page.getByRole("heading", { name: "Since the previous run" }).waitFor();
    await checkDashboardPage(dark.page, "eval-comparison-dark", true);
    await dark.page.goto("/dashboard/eval");
    await checkDashboardPage(dark.page, "eval-form-dark");
    expect(unexpectedConsoleErrors([...errors, ...dark.errors])).toEqual([]);
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "knowledge gaps: an escalated question grouped with its near-duplicate, and a link to write the article (light and dark)",
  async () => {
    const chat = async (message: string, session_id?: string) =>
      (await (
        await fetch(`${app.url}/api/sdk/chat`, {
          method: "POST",
          headers: { authorization: `Bearer ${org.widget_key}`, "content-type": "application/json" },
          body: JSON.stringify({ message, ...(session_id ? { session_id } : {}) }),
        })
      ).json()) as { session_id: string };
    const first = await chat("Do you have an office in Tokyo?");
    await chat("Where is your Tokyo office?", first.session_id);
    await chat("Do you sell gift vouchers for weddings?");
    const { page, errors } = await signedIn("light");
    await page.goto("/dashboard/knowledge");
    await page.getByRole("link", { name: "Knowledge gaps" }).click();
    const row = page.getByRole("row", { name: /Tokyo/ });
    expect(await row.getByRole("cell").first().getByRole("listitem").allTextContents()).toEqual([
      "Where is your Tokyo office?",
      "Do you have an office in Tokyo?",
    ]);
    expect(await row.getByRole("cell").nth(1).textContent()).toBe("2");
    await checkDashboardPage(page, "knowledge-gaps"); // photographed by knowledge-gaps.browser.test.ts
    const dark = await signedIn("dark");
    await dark.page.goto("/dashboard/knowledge/gaps");
    await checkDashboardPage(dark.page, "knowledge-gaps-dark");
    await row.getByRole("link", { name: "Write an article" }).click();
    expect(await page.getByLabel("Title").inputValue()).toBe("Where is your Tokyo office?");
    expect(unexpectedConsoleErrors([...errors, ...dark.errors])).toEqual([]);
  },
  TIMEOUT,
);
