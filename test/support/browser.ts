// A real headless Chromium for end-to-end tests, driven by playwright-core. The browser is
// Debian's package (/usr/bin/chromium, `apt-get install chromium`), never one downloaded by
// `playwright install`. CI installs it; where it is missing, browser tests skip (see
// `browserMissingReason`).
import { accessSync, constants } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

/** Whether Debian's chromium is installed and executable here. */
export function browserAvailable(): boolean {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** One line saying why browser tests are skipped, for the test output. */
export function browserMissingReason(): string {
  return `${CHROMIUM_PATH} is not installed (apt-get install -y chromium); browser tests are skipped`;
}

/**
 * Launches headless Chromium. Each test should open its own `browser.newContext()` (a fresh,
 * in-memory profile: no cookies carried between tests) and the caller closes the browser.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!browserAvailable()) throw new Error(browserMissingReason());
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30_000 });
}
