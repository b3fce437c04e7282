// The help centre's page: its chrome (the org's name, the search box, breadcrumbs, the footer),
// the metadata search engines and link previews read (title, description, canonical, Open Graph,
// JSON-LD), and the headers: a CSP that lets the page load only its own stylesheet and images
// from its own origin, and no scripts at all.
import { html, type Html } from "../html/html.ts";
import { jsonLd } from "../html/article.ts";
import { isRtl } from "../kit/language.ts";
import { helpTexts } from "./text.ts";
import { absolute, paths, type Site } from "./urls.ts";

export const HELP_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export interface PageMeta {
  title: string;
  description?: string;
  /** The page's path (from `paths`); its absolute form is the canonical URL. Absent: not to be indexed. */
  path?: string;
  crumbs?: { name: string; path: string }[];
  structured?: unknown[];
  ogType?: "website" | "article";
  /** The same page in each language it exists in, this one included: hreflang alternates and the language switcher. */
  alternates?: { lang: string; path: string }[];
}

/** A language's name in that language ("Deutsch", "español"), from Intl's CLDR data. */
export function languageName(lang: string): string {
  try {
    return new Intl.DisplayNames([lang], { type: "language" }).of(lang) ?? lang;
  } catch {
    return lang;
  }
}

const headers = (cache: string) => ({
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": HELP_CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "strict-origin-when-cross-origin",
  "cache-control": cache,
});

export function helpPage(site: Site, lang: string, meta: PageMeta, body: Html, options: { status?: number; query?: string } = {}): Response {
  const tx = helpTexts(lang, site.overrides);
  const name = tx.t("help.centre_name", { org: site.orgName });
  const title = meta.title === name ? name : `${meta.title} · ${name}`;
  const canonical = meta.path ? absolute(site, meta.path) : undefined;
  const crumbs = meta.crumbs ?? [];
  const breadcrumbList =
    crumbs.length > 1
      ? {
          "@context": "https://schema.org",
          "@type": "BreadcrumbList",
          itemListElement: crumbs.map((c, i) => ({ "@type": "ListItem", position: i + 1, name: c.name, item: absolute(site, c.path) })),
        }
      : null;
  const structured = [...(meta.structured ?? []), ...(breadcrumbList ? [breadcrumbList] : [])];
  const alternates = meta.alternates ?? [];
  const fallback = alternates.find((a) => a.lang === site.defaultLanguage) ?? alternates[0];
  const doc = html`<!doctype html>
<html lang="${lang}" dir="${isRtl(lang) ? "rtl" : "ltr"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${meta.description ? html`<meta name="description" content="${meta.description}">` : ""}
${canonical ? html`<link rel="canonical" href="${canonical}">` : html`<meta name="robots" content="noindex">`}
${
  alternates.length > 1
    ? html`${alternates.map((a) => html`<link rel="alternate" hreflang="${a.lang}" href="${absolute(site, a.path)}">`)}\
<link rel="alternate" hreflang="x-default" href="${absolute(site, fallback!.path)}">`
    : ""
}
<meta property="og:site_name" content="${name}">
<meta property="og:title" content="${meta.title}">
<meta property="og:type" content="${meta.ogType ?? "website"}">
${canonical ? html`<meta property="og:url" content="${canonical}">` : ""}
${meta.description ? html`<meta property="og:description" content="${meta.description}">` : ""}
<link rel="stylesheet" href="${paths.css(site)}">
<link rel="icon" href="data:,">
${structured.map((s) => jsonLd(s))}
</head>
<body>
<a class="skip" href="#content">${tx.t("help.skip")}</a>
<header class="site"><div class="bar">
<a class="name" href="${paths.home(site, lang)}">${name}</a>
${
  alternates.length > 1
    ? html`<nav class="languages" aria-label="${tx.t("help.language")}"><ul>\
${alternates.map((a) =>
  a.lang === lang
    ? html`<li><span aria-current="page" lang="${a.lang}">${languageName(a.lang)}</span></li>`
    : html`<li><a href="${a.path}" hreflang="${a.lang}" lang="${a.lang}">${languageName(a.lang)}</a></li>`,
)}</ul></nav>`
    : ""
}
<form class="search" role="search" method="get" action="${paths.search(site, lang)}">
<input type="search" name="q" aria-label="${tx.t("help.search_label")}" \
placeholder="${tx.t("help.search_placeholder")}" maxlength="200" value="${options.query ?? ""}">
<button type="submit">${tx.t("help.search_button")}</button>
</form>
</div></header>
<main id="content">
${
  crumbs.length > 1
    ? html`<nav class="crumbs" aria-label="${tx.t("help.breadcrumbs")}"><ol>\
${crumbs.map((c, i) => (i === crumbs.length - 1 ? html`<li aria-current="page">${c.name}</li>` : html`<li><a href="${c.path}">${c.name}</a></li>`))}\
</ol></nav>`
    : ""
}
${body}
</main>
<footer class="site"><p>${site.row.footer || `© ${site.orgName}`}</p></footer>
</body>
</html>
`;
  return new Response(doc.value, { status: options.status ?? 200, headers: headers("no-cache") });
}

/** The help centre's 404: the same chrome, not indexed. */
export function notFoundPage(site: Site, lang = site.defaultLanguage): Response {
  const tx = helpTexts(lang, site.overrides);
  const title = tx.t("help.not_found_title");
  return helpPage(site, lang, { title }, html`<h1>${title}</h1><p>${tx.t("help.not_found")}</p>`, { status: 404 });
}
