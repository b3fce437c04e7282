// The agent and custom-action editing pages in a real headless Chromium (Debian's chromium,
// playwright-core), as dashboard.browser.test.ts checks the others: each state opened signed in,
// checked with axe-core (no serious or critical violation, light and dark), free of console errors
// and CSP violations, and photographed into docs/screenshots/. Walks what an admin does: voice
// settings with a field error, the flow rows (add a row, remove one), disabling the active agent
// through its confirmation page and enabling it again, and editing a custom action's headers
// without ever seeing their values.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { readAgent } from "../../src/agents/service.ts";
import { createCustomAction, listCustomActions } from "../../src/integrations/custom-actions.ts";
import {
  browserAvailable,
  browserMissingReason,
  launchBrowser,
  checkDashboardPage,
  unexpectedConsoleErrors,
  watchedPage,
  signInThroughForm,
} from "../support/browser.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";

const TIMEOUT = 90_000;
const missing = !browserAvailable();
if (missing) console.log(`agents.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser;
let org: Awaited<ReturnType<typeof seedOrg>>;
let actionId: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  org = await seedOrg(app, { name: "Acme Support" });
  app.hosts.set("api.shop.example", ["93.184.216.34"]);
  const action = await createCustomAction(app.deps, org.org_id, {
    slug: "refund_order",
    method: "POST",
    url: "https://api.shop.example/refunds",
    description: "Refunds an order by its number.",
    headers: { Authorization: "Bearer sk-browser-secret", "X-Tenant": "acme" },
    input_schema: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
    destructive: true,
  });
  actionId = action.id;
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  if (app) await app.close();
});

async function signedInPage(colorScheme: "light" | "dark" = "light"): Promise<{ page: Page; errors: string[] }> {
  const { context, page, errors } = await watchedPage(browser, { baseURL: app.url, colorScheme });
  contexts.push(context);
  await signInThroughForm(page, { email: org.admin_email, password: org.password });
  return { page, errors };
}

test.skipIf(missing)(
  "agent: voice settings as a form with a field error, video mode, flow rows added and removed, disable through the confirmation page, enable",
  async () => {
    const { page, errors } = await signedInPage();
    await page.goto(`/dashboard/agents/${org.agent_id}`);

    // Voice and video: a field error next to its field, then saved.
    await page.getByLabel("Video display mode").selectOption("pip");
    await page.getByLabel("Offer voice in the widget (a microphone button)").check();
    await page.getByLabel("Language").fill("English please");
    await page.getByLabel("Speech to text").selectOption("server");
    await page.getByLabel("Voice", { exact: true }).fill("alloy");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.locator("#f-voice_language-error").waitFor();
    expect(await page.locator("#f-voice_language-error").textContent()).toContain("BCP 47");
    expect(await page.getByLabel("Language").getAttribute("aria-invalid")).toBe("true");
    // What was entered is kept around the error.
    expect(await page.getByLabel("Offer voice in the widget (a microphone button)").isChecked()).toBe(true);
    await checkDashboardPage(page, "agent-voice-error", true);
    await page.getByLabel("Language").fill("en-GB");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Changes saved.").waitFor();
    let agent = await readAgent(app.deps, org.org_id, org.agent_id);
    expect({ mode: agent.videoDisplayMode, voice: agent.voiceConfig }).toEqual({
      mode: "pip",
      voice: { enabled: true, language: "en-GB", stt: "server", tts: "browser", voice: "alloy", rate: 1, max_seconds: 30, auto_listen: false },
    });
    await checkDashboardPage(page, "agent-voice", true);

    // The flow: type a step, add a row (a round trip that keeps what was typed), fill it, save.
    await page.getByRole("link", { name: "Conversation flow" }).click();
    await page.getByLabel("Step 1", { exact: true }).fill("Greet the customer by name");
    await page.getByRole("button", { name: "Add a step row" }).click();
    await page.getByLabel("Step 2", { exact: true }).waitFor();
    expect(await page.getByLabel("Step 1", { exact: true }).inputValue()).toBe("Greet the customer by name");
    await page.getByLabel("Step 2", { exact: true }).fill('{"ask": "email", "required": true}');
    await page.getByLabel("Variable 1", { exact: true }).fill('{"name": "plan", "default": "free"}');
    // Enter in a row saves (Save is the form's first button), as a keyboard user expects.
    await page.getByLabel("Variable 1", { exact: true }).press("Enter");
    await page.getByText("Flow saved: 2 steps, 1 variable.").waitFor();
    // A row that starts like JSON but is not: the error next to that row.
    await page.getByLabel("Step 3", { exact: true }).fill('{"say": "bye"');
    await page.getByRole("button", { name: "Save flow" }).click();
    await page.locator("#f-step_2-error").waitFor();
    await checkDashboardPage(page, "agent-flow-error", false);
    await page.getByLabel("Step 3", { exact: true }).fill("");
    await page.getByLabel("Remove step 1").check();
    await page.getByRole("button", { name: "Save flow" }).click();
    await page.getByText("Flow saved: 1 step, 1 variable.").waitFor();
    agent = await readAgent(app.deps, org.org_id, org.agent_id);
    expect(agent.flowConfig).toEqual({ steps: [{ ask: "email", required: true }], custom_variables: [{ name: "plan", default: "free" }] });
    await page.getByLabel("Step 2", { exact: true }).fill("Offer the order status");
    await checkDashboardPage(page, "agent-flow", true);

    // Disable the active agent: its confirmation page says what happens to the widget.
    await page.goto(`/dashboard/agents/${org.agent_id}`);
    await page.getByRole("link", { name: "Disable…" }).click();
    await page.getByText("This is the active agent.").waitFor();
    await checkDashboardPage(page, "agent-disable", true);
    await page.getByRole("button", { name: /^Disable / }).click();
    await page.getByText("The organisation has no active agent now").waitFor();
    expect((await readAgent(app.deps, org.org_id, org.agent_id)).status).toBe("disabled");
    expect((await app.request(`/api/sdk/config?org_id=${org.org_id}`)).status).toBe(404);
    await checkDashboardPage(page, "agent-disabled", false);
    // Enable asks first (the script's confirm), then the agent is inactive; activate it again.
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Enable" }).click();
    await page.getByText("is enabled (inactive)").waitFor();
    await page.getByRole("button", { name: "Make this the active agent" }).click();
    await page.getByText("is now the active agent.").waitFor();
    expect((await app.request(`/api/sdk/config?org_id=${org.org_id}`)).status).toBe(200);
    await checkDashboardPage(page, "agent-edit-voice", true);
    expect(unexpectedConsoleErrors(errors)).toEqual([]);
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "custom action: edit every field, headers write-only (one replaced, one removed), a field error, never a value on the page",
  async () => {
    const { page, errors } = await signedInPage();
    await page.goto("/dashboard/custom-actions");
    await page.getByRole("link", { name: "Edit" }).first().click();
    await page.waitForURL(`**/dashboard/custom-actions/${actionId}`);
    expect(await page.content()).not.toContain("sk-browser-secret");
    // A field error first: the description emptied.
    await page.getByLabel("Description").fill("");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.locator("#f-description-error").waitFor();
    await checkDashboardPage(page, "custom-action-edit-error", false);
    await page.getByLabel("Description").fill("Refunds an order by its number, up to its paid amount.");
    await page.getByLabel("Method").selectOption("PUT");
    await page.getByLabel("Remove X-Tenant").check();
    await page.getByLabel("Add or replace headers").fill("Authorization: Bearer sk-rotated-secret");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Action custom.refund_order saved.").waitFor();
    const [saved] = await listCustomActions(app.deps, org.org_id);
    expect(saved).toMatchObject({ method: "PUT", header_names: ["Authorization"], description: "Refunds an order by its number, up to its paid amount." });
    const html = await page.content();
    expect(html).not.toContain("sk-rotated-secret");
    expect(html).not.toContain("sk-browser-secret");
    await checkDashboardPage(page, "custom-action-edit", true);
    expect(unexpectedConsoleErrors(errors)).toEqual([]);
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "dark: the flow, disable and custom action pages have no serious or critical axe violation",
  async () => {
    const { page, errors } = await signedInPage("dark");
    for (const [path, name] of [
      [`/dashboard/agents/${org.agent_id}`, "agent-edit-dark"],
      [`/dashboard/agents/${org.agent_id}/flow`, "agent-flow-dark"],
      [`/dashboard/agents/${org.agent_id}/disable`, "agent-disable-dark"],
      [`/dashboard/custom-actions/${actionId}`, "custom-action-edit-dark"],
    ] as const) {
      await page.goto(path);
      await checkDashboardPage(page, name, false);
    }
    expect(unexpectedConsoleErrors(errors)).toEqual([]);
  },
  TIMEOUT,
);
