// Uploading files on the knowledge sources page in a real headless Chromium: two files chosen in
// the file field (a markdown file and one of an unknown type) are read by the page's script and
// posted with the form; the markdown file becomes a document, the other is reported with its
// reason. The page is checked with axe-core in light and dark and photographed into docs/screenshots/.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { listDocs } from "../../src/knowledge/docs.ts";
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

const TIMEOUT = 120_000;
const missing = !browserAvailable();
if (missing) console.log(`knowledge-files.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser;
let org: Awaited<ReturnType<typeof seedOrg>>;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp({ NODE_ENV: "development" });
  org = await seedOrg(app, { name: "Acme Support", email: "ada@acme.example" });
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
  "two files chosen and uploaded: the markdown one becomes a document, the other is reported (light and dark)",
  async () => {
    const { page, errors } = await signedIn("light");
    await page.goto("/dashboard/knowledge/sources");
    await page.getByLabel("Files", { exact: true }).setInputFiles([
      { name: "returns.md", mimeType: "text/markdown", buffer: Buffer.from("# Returns\n\nSend the parcel back within 45 days, with the order number.") },
      { name: "logo.png", mimeType: "image/png", buffer: Buffer.from("not really a picture") },
    ]);
    await page.getByRole("button", { name: "Upload" }).click();
    await page.getByText("1 file imported as documents; not imported: logo.png").waitFor();
    await checkDashboardPage(page, "knowledge-sources-upload", true);
    const docs = await listDocs(app.deps, org.org_id, { limit: 100, offset: 0 });
    expect(docs.map((d) => d.title)).toEqual(["Returns"]);

    const dark = await signedIn("dark");
    await dark.page.goto("/dashboard/knowledge/sources");
    await checkDashboardPage(dark.page, "knowledge-sources-upload (dark)");
    expect(unexpectedConsoleErrors([...errors, ...dark.errors])).toEqual([]);
  },
  TIMEOUT,
);
