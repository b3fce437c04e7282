// What search engines read besides the pages (sitemaps.org; RFC 9309): sitemap.xml listing exactly
// the public articles (and each language's home page and collections), an article in several
// languages with its alternates (`xhtml:link rel="alternate" hreflang`, and `x-default`: the org's
// default language, else the first), and robots.txt naming it.
import type { Deps } from "../deps.ts";
import { escapeHtml } from "../html/html.ts";
import { type PublicDocHead, publicDocHeads } from "../knowledge/public-docs.ts";
import { languagesOf, translationsOf } from "./pages.ts";
import { absolute, languageOf, paths, type Site } from "./urls.ts";

const XML = { "content-type": "application/xml; charset=utf-8", "x-content-type-options": "nosniff", "cache-control": "no-cache" };

export async function sitemap(deps: Pick<Deps, "db">, site: Site): Promise<Response> {
  const docs = await publicDocHeads(deps, site.row.orgId, site.row.collections);
  const loc = (path: string) => escapeHtml(absolute(site, path));
  const entry = (path: string, lastmod?: Date, alternates: { lang: string; path: string }[] = []) => {
    const fallback = alternates.find((a) => a.lang === site.defaultLanguage) ?? alternates[0];
    const links =
      alternates.length > 1
        ? [...alternates, { lang: "x-default", path: fallback!.path }]
            .map((a) => `<xhtml:link rel="alternate" hreflang="${a.lang}" href="${loc(a.path)}"/>`)
            .join("")
        : "";
    return `<url><loc>${loc(path)}</loc>${lastmod ? `<lastmod>${lastmod.toISOString()}</lastmod>` : ""}${links}</url>`;
  };
  const languages = languagesOf(site, docs);
  // The versions of each article, grouped in one pass and cut to one per language once: each
  // document's alternates then cost its languages, not its group (up to PUBLIC_DOCS_LIMIT documents).
  const groups = new Map<string, PublicDocHead[]>();
  for (const d of docs) {
    if (d.translationGroup === null) continue;
    const members = groups.get(d.translationGroup);
    if (members) members.push(d);
    else groups.set(d.translationGroup, [d]);
  }
  for (const [key, members] of groups) groups.set(key, translationsOf(site, members[0]!, members));
  const inLanguage = (lang: string) => docs.filter((d: PublicDocHead) => languageOf(site, d) === lang);
  const lines: string[] = [];
  for (const lang of languages) {
    lines.push(
      entry(
        paths.home(site, lang),
        undefined,
        languages.map((l) => ({ lang: l, path: paths.home(site, l) })),
      ),
    );
    for (const tag of site.row.collections.filter((t) => inLanguage(lang).some((d) => d.tags.includes(t))))
      lines.push(entry(paths.collection(site, lang, tag)));
  }
  for (const doc of docs)
    lines.push(
      entry(
        paths.article(site, doc),
        doc.updatedAt,
        translationsOf(site, doc, doc.translationGroup === null ? [] : (groups.get(doc.translationGroup) ?? [])).map((t) => ({
          lang: languageOf(site, t),
          path: paths.article(site, t),
        })),
      ),
    );
  const body = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
${lines.join("\n")}
</urlset>
`;
  return new Response(body, { headers: XML });
}

export function robots(site: Site): Response {
  const body = `User-agent: *\nAllow: ${site.prefix || "/"}\n\nSitemap: ${site.canonical}/sitemap.xml\n`;
  return new Response(body, { headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache" } });
}
