// GET/POST /help/<slug>/… : the public help centre on our own host (no sign-in). A slug that is
// not an enabled help centre answers a plain 404 in the error shape.
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { createMediaCache } from "./media.ts";
import { loadSite, serveHelp } from "./serve.ts";
import { enabledHelpCentreBySlug } from "./settings.ts";

function formOf(body: unknown): URLSearchParams {
  const form = new URLSearchParams();
  if (body && typeof body === "object") for (const [k, v] of Object.entries(body as Record<string, unknown>)) if (typeof v === "string") form.set(k, v);
  return form;
}

export function helpCentreRoutes(deps: Pick<Deps, "config" | "db" | "guard" | "knowledge" | "limiter" | "log" | "now" | "passages" | "statements" | "texts">) {
  // Images of articles, per app (src/helpcentre/media.ts).
  const media = createMediaCache();
  const handle = async (request: Request, slug: string, body?: unknown) => {
    const row = await enabledHelpCentreBySlug(deps, slug);
    const site = row ? await loadSite(deps, row, false) : null;
    if (!site) throw AppError.notFound("There is no help centre here.");
    const url = new URL(request.url);
    const prefix = `/help/${slug}`;
    const rest = url.pathname.slice(prefix.length);
    return serveHelp(deps, media, site, {
      method: request.method,
      rest,
      query: url.searchParams,
      form: body === undefined ? undefined : formOf(body),
      request,
    });
  };
  const detail = { tags: ["Help centre"], hide: true };
  return new Elysia({ name: "help-centre" })
    .get("/help/:slug", ({ request, params }) => handle(request, params.slug), { detail: { ...detail, summary: "The help centre's home" } })
    .get("/help/:slug/*", ({ request, params }) => handle(request, params.slug), { detail: { ...detail, summary: "A help centre page" } })
    .post("/help/:slug/*", ({ request, params, body }) => handle(request, params.slug, body ?? {}), {
      detail: { ...detail, summary: "Was this article helpful? (a form)" },
    });
}
