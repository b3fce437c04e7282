// The help centre's pages, server-rendered with no script, one URL per language (/<lang>/…):
// home (the collections, in the order the org chose), a collection, an article, search results.
// Each page lists the same page in the other languages it exists in (hreflang and the switcher).
import type { Deps } from "../deps.ts";
import { renderArticle } from "../html/article.ts";
import { type Html, html } from "../html/html.ts";
import { type PublicDoc, type PublicDocHead, publicDocHeads } from "../knowledge/public-docs.ts";
import { helpPage, notFoundPage } from "./layout.ts";
import { type HelpHit, searchHelp } from "./search.ts";
import { helpTexts } from "./text.ts";
import { absolute, languageOf, paths, type Site } from "./urls.ts";

const crumbHome = (site: Site, lang: string) => ({ name: helpTexts(lang, site.overrides).t("help.home"), path: paths.home(site, lang) });

/** The languages the public articles are in, the org's default first. */
export function languagesOf(site: Site, docs: readonly PublicDocHead[]): string[] {
  const found = new Set(docs.map((d) => languageOf(site, d)));
  if (found.size === 0) return [site.defaultLanguage];
  return [...found].sort((a, b) => (a === site.defaultLanguage ? -1 : b === site.defaultLanguage ? 1 : a < b ? -1 : 1));
}

/**
 * An article and its public versions in other languages (`group`: the public documents sharing its
 * `translation_group`, src/knowledge/translations.ts), one per language, itself winning its own,
 * by language (docs/decisions.md "Help centre: translations are the knowledge base's").
 */
export function translationsOf(site: Site, doc: PublicDocHead, group: readonly PublicDocHead[]): PublicDocHead[] {
  const byLanguage = new Map<string, PublicDocHead>();
  for (const d of [doc, ...group.filter((g) => doc.translationGroup !== null && g.translationGroup === doc.translationGroup)])
    if (!byLanguage.has(languageOf(site, d))) byLanguage.set(languageOf(site, d), d);
  return [...byLanguage.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
}

function articleList(site: Site, docs: readonly PublicDocHead[]): Html {
  return html`<ul class="list">${docs.map((d) => html`<li><a href="${paths.article(site, d)}">${d.title}</a></li>`)}</ul>`;
}

export async function homePage(deps: Pick<Deps, "db">, site: Site, lang: string): Promise<Response> {
  const all = await publicDocHeads(deps, site.row.orgId, site.row.collections);
  const languages = languagesOf(site, all);
  if (!languages.includes(lang)) return notFoundPage(site, lang);
  const docs = all.filter((d) => languageOf(site, d) === lang);
  const collections = site.row.collections.map((tag) => ({ tag, docs: docs.filter((d) => d.tags.includes(tag)) })).filter((c) => c.docs.length > 0);
  const tx = helpTexts(lang, site.overrides);
  const name = tx.t("help.centre_name", { org: site.orgName });
  const body =
    collections.length === 0
      ? html`<h1>${name}</h1><p>${tx.t("help.no_articles")}</p>`
      : html`<h1>${name}</h1><h2>${tx.t("help.collections")}</h2>
<ul class="cards">${collections.map(
          (c) =>
            html`<li><a href="${paths.collection(site, lang, c.tag)}"><strong>${c.tag}</strong></a>\
<p class="muted">${tx.t("help.articles", { count: c.docs.length })}</p></li>`,
        )}</ul>`;
  return helpPage(
    site,
    lang,
    {
      title: name,
      description: name,
      path: paths.home(site, lang),
      alternates: languages.map((l) => ({ lang: l, path: paths.home(site, l) })),
      structured: [{ "@context": "https://schema.org", "@type": "WebSite", name, inLanguage: lang, url: absolute(site, paths.home(site, lang)) }],
    },
    body,
  );
}

export async function collectionPage(deps: Pick<Deps, "db">, site: Site, lang: string, tag: string): Promise<Response> {
  if (!site.row.collections.includes(tag)) return notFoundPage(site, lang);
  const all = (await publicDocHeads(deps, site.row.orgId, [tag])).filter((d) => d.tags.includes(tag));
  const docs = all.filter((d) => languageOf(site, d) === lang);
  if (docs.length === 0) return notFoundPage(site, lang);
  const path = paths.collection(site, lang, tag);
  return helpPage(
    site,
    lang,
    {
      title: tag,
      description: `${helpTexts(lang, site.overrides).t("help.articles", { count: docs.length })}: ${tag}`,
      path,
      crumbs: [crumbHome(site, lang), { name: tag, path }],
      alternates: languagesOf(site, all).map((l) => ({ lang: l, path: paths.collection(site, l, tag) })),
    },
    html`<h1>${tag}</h1>${articleList(site, docs)}`,
  );
}

/** The collection an article is shown under: the first of the org's ordered public tags it carries. */
export function collectionOf(site: Site, doc: PublicDocHead): string | undefined {
  return site.row.collections.find((t) => doc.tags.includes(t));
}

export function articlePage(site: Site, doc: PublicDoc, translations: readonly PublicDocHead[], options: { voted?: boolean }): Response {
  const lang = languageOf(site, doc);
  const tx = helpTexts(lang, site.overrides);
  const rendered = renderArticle(doc.body, (n) => paths.media(site, doc.id, n));
  const path = paths.article(site, doc);
  const tag = collectionOf(site, doc);
  const crumbs = [crumbHome(site, lang), ...(tag ? [{ name: tag, path: paths.collection(site, lang, tag) }] : []), { name: doc.title, path }];
  const url = absolute(site, path);
  const structured: unknown[] = [
    {
      "@context": "https://schema.org",
      "@type": "Article",
      headline: doc.title.slice(0, 110),
      inLanguage: lang,
      dateModified: doc.updatedAt.toISOString(),
      mainEntityOfPage: url,
      publisher: { "@type": "Organization", name: site.orgName },
      ...(rendered.description ? { description: rendered.description } : {}),
    },
  ];
  if (rendered.faq)
    structured.push({
      "@context": "https://schema.org",
      "@type": "FAQPage",
      mainEntity: rendered.faq.map((f) => ({ "@type": "Question", name: f.question, acceptedAnswer: { "@type": "Answer", text: f.answer } })),
    });
  const vote = options.voted
    ? html`<p class="notice" role="status">${tx.t("help.thanks")}</p>`
    : html`<form class="vote" method="post" action="${path}/vote"><p id="vote-q">${tx.t("help.helpful_question")}</p>
<button type="submit" name="helpful" value="yes" aria-describedby="vote-q">${tx.t("help.yes")}</button>
<button type="submit" name="helpful" value="no" class="secondary" aria-describedby="vote-q">${tx.t("help.no")}</button></form>`;
  return helpPage(
    site,
    lang,
    {
      title: doc.title,
      description: rendered.description || doc.title,
      path,
      crumbs,
      structured,
      ogType: "article",
      alternates: translations.map((t) => ({ lang: languageOf(site, t), path: paths.article(site, t) })),
    },
    html`<article class="doc"><h1>${doc.title}</h1>
<p class="muted">${tx.t("help.last_updated")} <time datetime="${doc.updatedAt.toISOString()}">${tx.date(doc.updatedAt)}</time></p>
${rendered.html}
</article>
${vote}`,
  );
}

/** A snippet with its `**marked**` words as <mark>, every piece escaped. */
export function snippetHtml(snippet: string): Html {
  return html`${snippet.split("**").map((part, i) => (i % 2 === 1 ? html`<mark>${part}</mark>` : html`${part}`))}`;
}

function results(site: Site, hits: readonly HelpHit[]): Html {
  return html`<ul class="list">${hits.map(
    (h) => html`<li><a href="${paths.article(site, h)}">${h.title}</a>${h.snippet ? html`<p class="muted">${snippetHtml(h.snippet)}</p>` : ""}</li>`,
  )}</ul>`;
}

/** Search among the articles of one language. */
export async function searchPage(
  deps: Pick<Deps, "db" | "knowledge" | "now" | "passages" | "statements">,
  site: Site,
  lang: string,
  query: string,
  record: boolean,
): Promise<Response> {
  const q = query.trim();
  const keep = (d: PublicDocHead) => languageOf(site, d) === lang;
  const hits = q === "" ? [] : await searchHelp(deps, site.row.orgId, site.row.collections, q, { record, keep });
  const tx = helpTexts(lang, site.overrides);
  const heading = q === "" ? tx.t("help.search_label") : tx.t("help.results_for", { query: q });
  const body = html`<h1>${heading}</h1>${
    q === "" ? html`<p>${tx.t("help.empty_query")}</p>` : hits.length === 0 ? html`<p>${tx.t("help.no_results")}</p>` : results(site, hits)
  }`;
  // Search results are not pages to index (no canonical: noindex).
  return helpPage(site, lang, { title: heading, crumbs: [crumbHome(site, lang), { name: tx.t("help.search_button"), path: paths.search(site, lang) }] }, body, {
    query: q,
  });
}
