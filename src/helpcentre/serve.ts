// One help centre request, wherever it came in: under /help/<slug> on our host (routes.ts) or at
// the root of the org's verified custom domain (front.ts). `rest` is the path after the site's
// prefix; the same pages answer both, only their links' prefix and canonical URLs differ.
import type { Deps } from "../deps.ts";
import { requestMeta } from "../http/request-meta.ts";
import { recordArticleView, recordArticleVote } from "../knowledge/help-signals.ts";
import { publicDocByPrefix } from "../knowledge/public-docs.ts";
import { orgDefaultLanguage, orgProfile } from "../tenancy/orgs.ts";
import { normalizeLanguage } from "../kit/language.ts";
import { publicDocHeads, publicTranslations } from "../knowledge/public-docs.ts";
import { html } from "../html/html.ts";
import { helpPage, notFoundPage } from "./layout.ts";
import { articleImage, type MediaCache } from "./media.ts";
import { articlePage, collectionPage, homePage, languagesOf, searchPage, translationsOf } from "./pages.ts";
import { robots, sitemap } from "./seo.ts";
import type { HelpCentreRow } from "./settings.ts";
import { brandedCss, logo } from "./brand.ts";
import { helpTexts } from "./text.ts";
import { paths, prefixOfRef, type Site, siteOf } from "./urls.ts";
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

export async function loadSite(deps: Pick<Deps, "db" | "config" | "texts">, row: HelpCentreRow, onCustomDomain: boolean): Promise<Site | null> {
  const org = await orgProfile(deps.db, row.orgId);
  if (!org) return null;
  const site = siteOf(row, org.name, deps.config.baseUrl, onCustomDomain, await orgDefaultLanguage(deps.db, row.orgId));
  return { ...site, overrides: await deps.texts.get(row.orgId) };
}

const redirect = (location: string, status = 301) => new Response(null, { status, headers: { location, "cache-control": "no-cache" } });

const badRequest = (site: Site, lang: string, message: string) => helpPage(site, lang, { title: message }, html`<h1>${message}</h1>`, { status: 400 });

/** A path segment that names a language: 2 or 3 lower-case letters (ISO 639-1 or 639-2), never a page's name. */
const LANGUAGE_SEGMENT = /^[a-z]{2,3}$/;

/** The reader's preferred language among `available` (RFC 9110 section 12.5.4, by truncation: pt-BR → pt), else the first. */
function negotiate(header: string | null, available: readonly string[]): string {
  const wanted = (header ?? "")
    .split(",")
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(";");
      const q = Number(
        params
          .find((p) => p.trim().startsWith("q="))
          ?.trim()
          .slice(2) ?? 1,
      );
      return { lang: normalizeLanguage(tag), q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((w) => w.lang && w.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return wanted.find((w) => available.includes(w.lang!))?.lang ?? available[0]!;
}

export async function serveHelp(
  deps: Pick<Deps, "db" | "guard" | "knowledge" | "limiter" | "log" | "now" | "passages" | "statements">,
  media: MediaCache,
  site: Site,
  req: HelpRequest,
): Promise<Response> {
  const { rest, method } = req;
  if (rest === "") return redirect(paths.root(site));
  const raw = rest.split("/").slice(1);
  const parts = raw.map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return "\u0000";
    }
  });
  // Files of the whole site, in no language.
  if (parts.length === 1 && parts[0] === "help.css") return brandedCss(deps, site);
  if (parts.length === 1 && parts[0] === "logo") return logo(deps, media, site);
  if (parts.length === 1 && parts[0] === "sitemap.xml") return sitemap(deps, site);
  if (parts.length === 1 && parts[0] === "robots.txt") return robots(site);
  if (parts.length === 3 && parts[0] === "media" && /^\d{1,3}$/.test(parts[2]!)) {
    const doc = await findArticle(deps, site, parts[1]!);
    return doc ? articleImage(deps, media, doc.body, Number(parts[2])) : notFoundPage(site);
  }
  // The root: the reader's language among those the articles are in (a redirect that varies by Accept-Language).
  if (parts.length === 1 && parts[0] === "") {
    const languages = languagesOf(site, await publicDocHeads(deps, site.row.orgId, site.row.collections));
    const response = redirect(paths.home(site, negotiate(req.request.headers.get("accept-language"), languages)), 302);
    response.headers.set("vary", "Accept-Language");
    return response;
  }
  // A page without its language (an address from before languages, or typed): the default language's, or the article's own.
  if (!LANGUAGE_SEGMENT.test(parts[0] ?? "")) {
    if (parts[0] === "articles" && parts.length === 2 && method === "GET") {
      const doc = await findArticle(deps, site, parts[1]!);
      return doc ? redirect(paths.article(site, doc)) : notFoundPage(site);
    }
    if (method === "GET" && (parts[0] === "search" || parts[0] === "collections")) {
      const query = req.query.toString();
      return redirect(`${site.prefix}/${site.defaultLanguage}${rest}${query ? `?${query}` : ""}`);
    }
    return notFoundPage(site);
  }
  const lang = parts[0]!;
  const [first, second, third] = parts.slice(1);
  const n = parts.length - 1;
  if (method === "POST") {
    if (n === 3 && first === "articles" && second && third === "vote") return vote(deps, site, lang, second, req);
    return notFoundPage(site, lang);
  }
  if (n === 1 && first === "") return homePage(deps, site, lang);
  if (n === 1 && first === "search") {
    const q = req.query.get("q") ?? "";
    if (q.length > HELP_SEARCH.query) return badRequest(site, lang, helpTexts(lang, site.overrides).t("help.query_too_long", { max: HELP_SEARCH.query }));
    return searchPage(deps, site, lang, q, q.trim() !== "" && (await mayRecordSearch(deps, site.row.orgId, req.request)));
  }
  if (n === 2 && first === "collections") return collectionPage(deps, site, lang, second!);
  if (n === 2 && first === "articles") {
    const doc = await findArticle(deps, site, second!);
    if (!doc) return notFoundPage(site, lang);
    // A former title (or a mistyped one, or another language) with the right id: the article's one URL (issue "stable slugs").
    if (paths.article(site, doc) !== `${site.prefix}/${lang}/articles/${raw[2]}`) return redirect(paths.article(site, doc));
    await recordArticleView(deps, site.row.orgId, doc.id);
    const translations = translationsOf(site, doc, await publicTranslations(deps, site.row.orgId, site.row.collections, doc.translationGroup));
    return articlePage(site, doc, translations, { voted: req.query.get("voted") === "1" });
  }
  return notFoundPage(site, lang);
}

async function findArticle(deps: Pick<Deps, "db">, site: Site, ref: string) {
  const prefix = prefixOfRef(ref);
  return prefix ? publicDocByPrefix(deps, site.row.orgId, site.row.collections, prefix) : null;
}

async function vote(deps: Pick<Deps, "db" | "limiter" | "now">, site: Site, lang: string, ref: string, req: HelpRequest): Promise<Response> {
  const doc = await findArticle(deps, site, ref);
  if (!doc) return notFoundPage(site, lang);
  const answer = req.form?.get("helpful");
  if (answer !== "yes" && answer !== "no") return badRequest(site, lang, helpTexts(lang, site.overrides).t("help.answer_yes_no"));
  const taken = await deps.limiter.take(`help_vote:${site.row.orgId}:${requestMeta(req.request).ip}`, HELP_VOTES, deps.now());
  if (!taken.allowed) {
    const tooMany = helpTexts(lang, site.overrides).t("help.too_many");
    const response = helpPage(site, lang, { title: tooMany }, html`<h1>${tooMany}</h1>`, { status: 429 });
    response.headers.set("retry-after", String(taken.retryAfter));
    return response;
  }
  await recordArticleVote(deps, site.row.orgId, doc.id, answer === "yes");
  // Post/redirect/get: reloading the thanks does not vote again.
  return redirect(`${paths.article(site, doc)}?voted=1`, 303);
}
