// The help centre for the widget (src/widget/client/help.ts), public like the pages, CORS `*` as
// every public API: GET /api/help/{org_id}/search?q= (the help centre's search), /suggestions
// (articles for the page the customer is on, from its title and path: the page's context), and
// /articles/{ref} (one public article as safe markup, its images served from the help centre).
// 404 when the org has no enabled help centre.
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { renderArticle } from "../html/article.ts";
import { isUuid } from "../kit/ids.ts";
import { publicDocByPrefix } from "../knowledge/public-docs.ts";
import { HELP_SEARCH, mayRecordSearch, searchHelp } from "./search.ts";
import { loadSite } from "./serve.ts";
import { helpCentreOfOrg } from "./settings.ts";
import { paths, prefixOfRef, type Site } from "./urls.ts";

async function siteOfOrg(deps: Pick<Deps, "config" | "db" | "texts">, orgId: string): Promise<Site> {
  const row = isUuid(orgId) ? await helpCentreOfOrg(deps, orgId) : null;
  const site = row?.enabled ? await loadSite(deps, row, false) : null;
  if (!site) throw AppError.notFound("This organisation has no public help centre.");
  // Links the widget opens leave the customer's site for ours (or the org's verified domain).
  return { ...site, prefix: site.canonical };
}

const Hit = t.Object({ id: t.String(), title: t.String(), snippet: t.String(), url: t.String() });

export function helpWidgetRoutes(deps: Pick<Deps, "config" | "db" | "knowledge" | "limiter" | "now" | "passages" | "statements" | "texts">) {
  const detail = { tags: ["Help centre"] };
  const hits = async (site: Site, q: string, record: boolean, limit: number) =>
    (await searchHelp(deps, site.row.orgId, site.row.collections, q, { record, limit })).map((h) => ({ ...h, url: paths.article(site, h) }));
  return new Elysia({ name: "help-widget" })
    .get(
      "/api/help/:org_id/search",
      async ({ params, query, request }) => {
        const site = await siteOfOrg(deps, params.org_id);
        const record = await mayRecordSearch(deps, site.row.orgId, request);
        return { results: await hits(site, query.q, record, HELP_SEARCH.results) };
      },
      {
        query: t.Object({ q: t.String({ maxLength: HELP_SEARCH.query }) }),
        response: t.Object({ results: t.Array(Hit) }),
        detail: { ...detail, summary: "Search the org's public help centre articles" },
      },
    )
    .get(
      "/api/help/:org_id/suggestions",
      async ({ params, query }) => {
        // Asked by every widget on every page: an org without a public help centre is an answer
        // (`available: false`, the widget hides its help view), not a 404 in the page's console.
        const site = await siteOfOrg(deps, params.org_id).catch((error: unknown) => {
          if (error instanceof AppError && error.status === 404) return null;
          throw error;
        });
        if (!site) return { available: false, results: [] };
        // The page's words: its title and the words of its path ("/billing/refunds" → "billing refunds").
        const words = `${query.title ?? ""} ${(query.path ?? "").replace(/[^\p{L}\p{N}]+/gu, " ")}`;
        return { available: true, results: await hits(site, words, false, 3) };
      },
      {
        query: t.Object({ title: t.Optional(t.String({ maxLength: HELP_SEARCH.query })), path: t.Optional(t.String({ maxLength: HELP_SEARCH.query })) }),
        response: t.Object({
          available: t.Boolean({ description: "Whether the org has a public help centre; false: no articles to suggest, the widget shows no help view." }),
          results: t.Array(Hit),
        }),
        detail: { ...detail, summary: "Articles for the page the customer is on (its title and path)" },
      },
    )
    .get(
      "/api/help/:org_id/articles/:ref",
      async ({ params }) => {
        const site = await siteOfOrg(deps, params.org_id);
        const prefix = prefixOfRef(params.ref);
        const doc = prefix ? await publicDocByPrefix(deps, site.row.orgId, site.row.collections, prefix) : null;
        if (!doc) throw AppError.notFound("No such public article.");
        const rendered = renderArticle(doc.body, (n) => paths.media(site, doc.id, n));
        return { id: doc.id, title: doc.title, html: rendered.html.value, url: paths.article(site, doc), updated_at: doc.updatedAt.toISOString() };
      },
      {
        params: t.Object({ org_id: t.String({ maxLength: 64 }), ref: t.String({ maxLength: 200 }) }),
        response: t.Object({ id: t.String(), title: t.String(), html: t.String(), url: t.String(), updated_at: t.String() }),
        detail: { ...detail, summary: "One public article as safe markup, for the widget's panel" },
      },
    );
}
