// /assets/dashboard.js: the dashboard's client (./client, TypeScript) bundled like the widget
// (src/html/bundle.ts): built on first request from source, or read from the compiled binary,
// which embeds the file scripts/build.ts writes as svc-dashboard.js.
import { join } from "node:path";
import { bundleScript, loadScript, type ScriptBundle } from "../html/bundle.ts";

export const DASHBOARD_ENTRY = join(import.meta.dir, "client/main.ts");
/** The name scripts/build.ts gives the prebuilt file, as Bun lists it among embedded files. */
const EMBEDDED = /^svc-dashboard(?:-[a-z0-9]+)?\.js$/;

export function buildDashboardCode(): Promise<string> {
  return bundleScript(DASHBOARD_ENTRY);
}

export function loadDashboardBundle(): Promise<ScriptBundle> {
  return loadScript(DASHBOARD_ENTRY, EMBEDDED);
}
