// The help centre's URLs. An article is /articles/<12 hex digits of its id>-<its title as a
// slug>: the id part never changes, so an old URL (a former title) still finds the article and
// answers 301 to the current one (issue "stable slugs that survive a title change").
import type { Overrides } from "../i18n/catalogue.ts";
import type { HelpCentreRow } from "./settings.ts";

/** A title as a URL word list: accents dropped, lower-case letters and digits joined by hyphens, at most 80 characters. */
export function titleSlug(title: string): string {
  const words = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  return words.slice(0, 80).replace(/-+$/, "") || "article";
}

/** The part of an id an article URL carries. */
export function idPrefix(docId: string): string {
  return docId.replace(/-/g, "").slice(0, 12);
}

/** An article's reference in its URL: the id prefix and the current title. */
export function articleRef(doc: { id: string; title: string }): string {
  return `${idPrefix(doc.id)}-${titleSlug(doc.title)}`;
}

/** The id prefix an article reference starts with, or null. */
export function prefixOfRef(ref: string): string | null {
  const match = /^([0-9a-f]{12})(?:-|$)/.exec(ref);
  return match ? match[1]! : null;
}

export interface Site {
  row: HelpCentreRow;
  orgName: string;
  /** What root-relative links start with: "/help/<slug>" on our host, "" on the org's own domain. */
  prefix: string;
  /** Absolute URL of the help centre's root as search engines should know it (the verified custom domain when there is one). */
  canonical: string;
  /** The org's default language (ISO 639-1): a document whose language is not known is in it. */
  defaultLanguage: string;
  /** The org's own wording of the catalogue's sentences, by language (src/texts/): the pages' chrome says them. */
  overrides?: Readonly<Record<string, Overrides>>;
}

export function siteOf(row: HelpCentreRow, orgName: string, baseUrl: string, onCustomDomain: boolean, defaultLanguage = "en"): Site {
  const canonical = row.customDomain && row.domainVerifiedAt ? `https://${row.customDomain}` : `${baseUrl}/help/${row.slug}`;
  return { row, orgName, prefix: onCustomDomain ? "" : `/help/${row.slug}`, canonical, defaultLanguage };
}

/** The language an article is shown in: its own, else the org's default. */
export const languageOf = (site: Site, doc: { language?: string | null }) => doc.language ?? site.defaultLanguage;

/** One URL per language (issue "Localized"): /<lang>/ before every page but the files of the whole site. */
export const paths = {
  root: (s: Site) => `${s.prefix}/`,
  home: (s: Site, lang: string) => `${s.prefix}/${lang}/`,
  collection: (s: Site, lang: string, tag: string) => `${s.prefix}/${lang}/collections/${encodeURIComponent(tag)}`,
  article: (s: Site, doc: { id: string; title: string; language?: string | null }) => `${s.prefix}/${languageOf(s, doc)}/articles/${articleRef(doc)}`,
  search: (s: Site, lang: string) => `${s.prefix}/${lang}/search`,
  css: (s: Site) => `${s.prefix}/help.css`,
  logo: (s: Site) => `${s.prefix}/logo`,
  media: (s: Site, docId: string, n: number) => `${s.prefix}/media/${idPrefix(docId)}/${n}`,
};

/** The absolute form of a path of `paths` (it starts with the site's prefix). */
export function absolute(site: Site, path: string): string {
  return site.canonical + path.slice(site.prefix.length).replace(/^\/$/, "/");
}
