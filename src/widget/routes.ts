// GET /widget.js (the embeddable widget) and GET /demo.
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { ensureDemo } from "../orgs/demo.ts";
import { type WidgetBundle, loadWidgetBundle } from "./bundle.ts";
import { demoPage } from "./demo.ts";

/**
 * Five minutes: the URL carries no version (it is pasted into sites once), so a deploy reaches
 * pages within minutes; after that the ETag makes the revalidation a 304. Cross-origin by design:
 * CORS `*` comes from the app-wide policy, and CORP lets pages with COEP load it.
 */
export const WIDGET_CACHE_CONTROL = "public, max-age=300";

export function widgetRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "invalidation" | "knowledge" | "now" | "passwords" | "tools">) {
  // Built (or read from the binary) once per app instance, on first request.
  let bundle: Promise<WidgetBundle> | undefined;
  return new Elysia({ name: "widget-assets" })
    .get("/widget.js", async ({ request }) => {
      bundle ??= loadWidgetBundle().catch((error) => {
        bundle = undefined;
        throw error;
      });
      const { code, etag } = await bundle;
      const headers = {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": WIDGET_CACHE_CONTROL,
        etag,
        "x-content-type-options": "nosniff",
        "cross-origin-resource-policy": "cross-origin",
      };
      if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
      return new Response(code, { headers });
    })
    .get("/demo", async ({ query }) => {
      // Only where the demo is seeded (SEED_DEMO=1, the default); the same lookup the start banner uses.
      const demo = deps.config.seedDemo ? await ensureDemo(deps) : null;
      if (!demo) throw AppError.notFound("There is no demo organisation on this server (SEED_DEMO=0).");
      return demoPage(deps.config.baseUrl, demo, query.voice === "on");
    });
}
