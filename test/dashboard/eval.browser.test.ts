// "Test your agent" in a real headless Chromium: a question file chosen in the file field fills
// the set (the page's script), the set is run, a document is edited, the set is run again and the
// run page compares the two. The knowledge gaps page lists an escalated question with its
// near-duplicate. A run that waited for its turn says so; one past the org's bound is refused next
// to the questions. One question is tried in place and shows its answer, passage, confidence and
// why; a CSV question set with an expected passage is uploaded and run. Each page is checked with
// axe-core in light and dark and photographed into docs/screenshots/ (the gaps page by knowledge-gaps.browser.test.ts).
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

test.skipIf(missing)(
  "a run that waited its turn says so; a run past the org's two in flight is refused next to the questions",
  async () => {
    const { page, errors } = await signedIn("light");
    await page.goto("/dashboard/eval");
    await page
      .getByLabel("Questions: one a line, CSV with a header, or JSON Lines")
      .fill('{"question": "How do I reset my password?", "expected_doc": "Resetting your password"}');
    // Another run of the org is answering (its place taken as a run takes it).
    const other = await app.deps.evalRuns.orgs.acquire(org.org_id);
    const submitted = page.getByRole("button", { name: "Run the questions" }).click();
    while (app.deps.evalRuns.orgs.load(org.org_id).waiting < 1) await Bun.sleep(20);
    await Bun.sleep(1_100);
    other.release();
    await submitted;
    await page.getByText(/It waited [1-9]\d* s for its turn behind 1 other run\./).waitFor();
    await checkDashboardPage(page, "eval-waited", true);

    // One run answering and one waiting: a third is refused, and the form keeps the questions.
    const answering = await app.deps.evalRuns.orgs.acquire(org.org_id);
    const waiting = app.deps.evalRuns.orgs.acquire(org.org_id);
    await page.goto("/dashboard/eval");
    await page.getByRole("button", { name: "Run the questions" }).click();
    await page.getByText("This organisation already has 2 runs answering or waiting").first().waitFor();
    expect(await page.getByLabel("Questions: one a line, CSV with a header, or JSON Lines").inputValue()).toContain("reset my password");
    await checkDashboardPage(page, "eval-refused", true);
    answering.release();
    (await waiting).release();
    expect(unexpectedConsoleErrors(errors)).toEqual([]);
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "try a question: the answer in place with its passage, confidence and why; a CSV set with an expected passage (light and dark)",
  async () => {
    const { page, errors } = await signedIn("light");
    await page.goto("/dashboard/eval");
    const panel = page.locator("section", { has: page.getByRole("heading", { name: "Try a question" }) });
    await panel.getByLabel("Question").fill("How do I reset my password with a zeppelin?");
    await panel.getByRole("button", { name: "Ask" }).click();
    await page.getByRole("heading", { name: /^Answer of / }).waitFor();
    expect(page.url()).toEndWith("/dashboard/eval/preview");
    expect(await panel.getByLabel("Question").inputValue()).toBe("How do I reset my password with a zeppelin?");
    expect(await panel.locator("blockquote").textContent()).toContain("Choose Forgot password on the sign-in page");
    expect(await panel.getByRole("link", { name: "Resetting your password" }).count()).toBeGreaterThan(0);
    const why = panel.locator(".preview-reasons");
    expect(await why.getByRole("listitem").filter({ hasText: "in this passage" }).textContent()).toContain("reset, password");
    expect(await why.getByRole("listitem").filter({ hasText: "no page uses" }).textContent()).toContain("zeppelin");
    expect(await why.getByRole("listitem").filter({ hasText: "leads the next by" }).count()).toBe(1);
    expect(await panel.getByText(/^Confidence/).textContent()).toMatch(/Confidence \d\.\d\d/);
    await checkDashboardPage(page, "eval-preview", true);

    // An empty question is refused next to the field.
    await panel.getByLabel("Question").fill("");
    await panel.getByRole("button", { name: "Ask" }).click();
    await page.getByText("Enter a question.").first().waitFor();
    await checkDashboardPage(page, "eval-preview-error");

    const dark = await signedIn("dark");
    await dark.page.goto("/dashboard/eval");
    const darkPanel = dark.page.locator("section", { has: dark.page.getByRole("heading", { name: "Try a question" }) });
    await darkPanel.getByLabel("Question").fill("Can I change my billing address?");
    await darkPanel.getByRole("button", { name: "Ask" }).click();
    await dark.page.getByRole("heading", { name: /^Answer of / }).waitFor();
    expect(await darkPanel.locator("blockquote").textContent()).toContain("billing address");
    await checkDashboardPage(dark.page, "eval-preview-dark", true);

    // A CSV question set: quoted commas, an expected passage the page holds and one it does not.
    const csv = [
      "question,expected_doc,expected_passage",
      '"How do I reset my password, please?",Resetting your password,forgot password',
      "How do I reset my password?,Resetting your password,two-factor code",
      "Can I change my billing address?,Invoices and billing,",
    ].join("\r\n");
    await page.goto("/dashboard/eval");
    await page.getByLabel("Question file (optional)").setInputFiles([{ name: "questions.csv", mimeType: "text/csv", buffer: Buffer.from(csv) }]);
    await page.waitForFunction(() => (document.querySelector("textarea[name=content]") as HTMLTextAreaElement).value.startsWith("question,"));
    await page.getByRole("button", { name: "Run the questions" }).click();
    await page.getByText("Run finished: 3 questions.").waitFor();
    const rows = page.getByRole("table", { name: "Each question's answer" }).getByRole("row");
    expect(await rows.nth(1).getByRole("cell").nth(0).textContent()).toStartWith("How do I reset my password, please?");
    expect(await rows.nth(1).getByText("right", { exact: true }).count()).toBe(1);
    expect(await rows.nth(2).getByText("wrong", { exact: true }).count()).toBe(1);
    expect(await rows.nth(2).getByRole("cell").nth(1).textContent()).toContain("two-factor code");
    expect(await rows.nth(3).getByText("right", { exact: true }).count()).toBe(1);
    await checkDashboardPage(page, "eval-csv-run", true);

    // A CSV row with too many fields is refused, naming its line.
    await page.goto("/dashboard/eval");
    await page.getByLabel("Questions: one a line, CSV with a header, or JSON Lines").fill("question,expected_doc\nfine?,Page\ntoo,many,fields");
    await page.getByRole("button", { name: "Run the questions" }).click();
    await page.getByText("Line 3: 3 fields where the header names 2").first().waitFor();
    await checkDashboardPage(page, "eval-csv-error");
    expect(unexpectedConsoleErrors([...errors, ...dark.errors])).toEqual([]);
  },
  TIMEOUT,
);
