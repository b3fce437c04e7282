// One help centre request, wherever it came in: under /help/<slug> on our host (routes.ts) or at
// the root of the org's verified custom domain (front.ts). `rest` is the path after the site's
// prefix; the same pages answer both, only their links' prefix and canonical URLs differ.
import type { Deps } from "../deps.ts";
import { requestMeta } from "../http/request-meta.ts";
import { recordArticleView, recordArticleVote } from "../knowledge/help-signals.ts";
import { publicDocByPrefix } from "../knowledge/public-docs.ts";
import { orgProfile } from "../tenancy/orgs.ts";
import { html } from "../html/html.ts";
import { helpPage, notFoundPage } from "./layout.ts";
import { articleImage, type MediaCache } from "./media.ts";
import { articlePage, collectionPage, homePage, searchPage } from "./pages.ts";
import { robots, sitemap } from "./seo.ts";
import type { HelpCentreRow } from "./settings.ts";
import { HELP_CSS } from "./styles.ts";
import { TEXT } from "./text.ts";
import { articleRef, paths, prefixOfRef, type Site, siteOf } from "./urls.ts";
import { HELP_SEARCH, mayRecordSearch } from "./search.ts";

/** "Was this article helpful?": per client address, across the org's articles. */
export const HELP_VOTES = { limit: 30, windowSeconds: 3600 } as const;

export interface HelpRequest {
  method: string;
  /** The path after the site's prefix, starting with "/" (or empty for the prefix itself). */
  rest: string;
  query: URLSearchParams;
  /** A POST's form fields. */
  form?: URLSearchParams;
  request: Request;
}

export async function loadSite(deps: Pick<Deps, "db" | "config">, row: HelpCentreRow, onCustomDomain: boolean): Promise<Site | null> {
  const org = await orgProfile(deps.db, row.orgId);
  return org ? siteOf(row, org.name, deps.config.baseUrl, onCustomDomain) : null;
}

const redirect = (location: string, status = 301) => new Response(null, { status, headers: { location, "cache-control": "no-cache" } });

const css = () =>
  new Response(HELP_CSS, {
    headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" },
  });

const badRequest = (site: Site, message: string) => helpPage(site, { title: message }, html`<h1>${message}</h1>`, { status: 400 });

export async function serveHelp(deps: Deps, media: MediaCache, site: Site, req: HelpRequest): Promise<Response> {
  const { rest, method } = req;
  const segments = rest.split("/").filter((s, i) => i > 0 || s !== "");
  if (rest === "") return redirect(paths.home(site));
  const [first, second, third, fourth] = segments.map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return "\u0000";
    }
  });
  if (method === "POST") {
    if (first === "articles" && second && third === "vote" && segments.length === 3) return vote(deps, site, second, req);
    return notFoundPage(site);
  }
  if (segments.length === 0 || (segments.length === 1 && first === "")) return homePage(deps, site);
  if (segments.length === 1 && first === "help.css") return css();
  if (segments.length === 1 && first === "sitemap.xml") return sitemap(deps, site);
  if (segments.length === 1 && first === "robots.txt") return robots(site);
  if (segments.length === 1 && first === "search") {
    const q = req.query.get("q") ?? "";
    if (q.length > HELP_SEARCH.query) return badRequest(site, `A search is at most ${HELP_SEARCH.query} characters.`);
    return searchPage(deps, site, q, q.trim() !== "" && (await mayRecordSearch(deps, site.row.orgId, req.request)));
  }
  if (segments.length === 2 && first === "collections") return collectionPage(deps, site, second!);
  if (segments.length === 2 && first === "articles") {
    const doc = await findArticle(deps, site, second!);
    if (!doc) return notFoundPage(site);
    const current = articleRef(doc);
    // A former title (or a mistyped one) with the right id: the article's one URL (issue "stable slugs").
    if (second !== current) return redirect(paths.article(site, doc));
    await recordArticleView(deps, site.row.orgId, doc.id);
    return articlePage(site, doc, { voted: req.query.get("voted") === "1" });
  }
  if (segments.length === 3 && first === "media" && /^\d{1,3}$/.test(third!)) {
    const doc = await findArticle(deps, site, second!);
    if (!doc || fourth !== undefined) return notFoundPage(site);
    return articleImage(deps, media, doc.body, Number(third));
  }
  return notFoundPage(site);
}

async function findArticle(deps: Deps, site: Site, ref: string) {
  const prefix = prefixOfRef(ref);
  return prefix ? publicDocByPrefix(deps, site.row.orgId, site.row.collections, prefix) : null;
}

async function vote(deps: Deps, site: Site, ref: string, req: HelpRequest): Promise<Response> {
  const doc = await findArticle(deps, site, ref);
  if (!doc) return notFoundPage(site);
  const answer = req.form?.get("helpful");
  if (answer !== "yes" && answer !== "no") return badRequest(site, "Answer yes or no.");
  const taken = await deps.limiter.take(`help_vote:${site.row.orgId}:${requestMeta(req.request).ip}`, HELP_VOTES, deps.now());
  if (!taken.allowed) {
    const response = helpPage(site, { title: TEXT.tooMany }, html`<h1>${TEXT.tooMany}</h1>`, { status: 429 });
    response.headers.set("retry-after", String(taken.retryAfter));
    return response;
  }
  await recordArticleVote(deps, site.row.orgId, doc.id, answer === "yes");
  // Post/redirect/get: reloading the thanks does not vote again.
  return redirect(`${paths.article(site, doc)}?voted=1`, 303);
}
