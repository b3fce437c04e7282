// The dashboard's stylesheet (styles.ts) and its one enhancement script (client/, bundled by
// bundle.ts), served from /assets/: the CSP allows scripts and styles from this origin only,
// nothing inline. Every page works without the script.
import { Elysia } from "elysia";
import type { ScriptBundle } from "../html/bundle.ts";
import { scriptResponse } from "../html/bundle.ts";
import { loadDashboardBundle } from "./bundle.ts";
import { DASHBOARD_CSS } from "./styles.ts";

const CACHE_CONTROL = "public, max-age=300";

export function dashboardAssets() {
  // Built (or read from the binary) once per app instance, on first request; a failed build is tried again.
  let bundle: Promise<ScriptBundle> | undefined;
  return new Elysia({ name: "dashboard-assets" })
    .get(
      "/assets/dashboard.css",
      () =>
        new Response(DASHBOARD_CSS, {
          headers: { "content-type": "text/css; charset=utf-8", "cache-control": CACHE_CONTROL, "x-content-type-options": "nosniff" },
        }),
    )
    .get("/assets/dashboard.js", async ({ request }) => {
      bundle ??= loadDashboardBundle().catch((error) => {
        bundle = undefined;
        throw error;
      });
      return scriptResponse(request, await bundle, CACHE_CONTROL);
    });
}
