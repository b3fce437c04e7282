// What search engines read besides the pages (sitemaps.org; RFC 9309): sitemap.xml listing exactly
// the public articles (and the home page and collections), and robots.txt naming it.
import type { Deps } from "../deps.ts";
import { escapeHtml } from "../html/html.ts";
import { publicDocHeads } from "../knowledge/public-docs.ts";
import { absolute, paths, type Site } from "./urls.ts";

const XML = { "content-type": "application/xml; charset=utf-8", "x-content-type-options": "nosniff", "cache-control": "no-cache" };

export async function sitemap(deps: Deps, site: Site): Promise<Response> {
  const docs = await publicDocHeads(deps, site.row.orgId, site.row.collections);
  const entry = (path: string, lastmod?: Date) =>
    `<url><loc>${escapeHtml(absolute(site, path))}</loc>${lastmod ? `<lastmod>${lastmod.toISOString()}</lastmod>` : ""}</url>`;
  const used = site.row.collections.filter((tag) => docs.some((d) => d.tags.includes(tag)));
  const lines = [
    entry(paths.home(site)),
    ...used.map((tag) => entry(paths.collection(site, tag))),
    ...docs.map((d) => entry(paths.article(site, d), d.updatedAt)),
  ];
  const body = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
${lines.join("\n")}
</urlset>
`;
  return new Response(body, { headers: XML });
}

export function robots(site: Site): Response {
  const body = `User-agent: *\nAllow: ${site.prefix || "/"}\nDisallow: ${site.prefix}/search\n\nSitemap: ${site.canonical}/sitemap.xml\n`;
  return new Response(body, { headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache" } });
}
