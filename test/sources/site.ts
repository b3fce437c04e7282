// A loopback website for the knowledge-source tests: robots.txt, a sitemap index naming a plain and
// a gzipped sitemap, pages wrapped in navigation, header, cookie banner and footer, a redirect, a
// 404, ETags honoured with 304 (counted). Pages can be edited and deleted between syncs.
import { createHash } from "node:crypto";

export interface TestSite {
  origin: string;
  pages: Map<string, { title: string; text: string }>;
  /** Requests by path, and 304 answers given. */
  requests: string[];
  notModified: number;
  userAgents: Set<string>;
  stop(): void;
}

export const BOILERPLATE = ["BoilerCorp", "We use cookies", "Pricing plans menu", "All rights reserved"];

function page(title: string, text: string): string {
  return `<!doctype html><html><head><title>${title} | BoilerCorp Help</title></head><body>
<div class="cookie-banner">We use cookies to improve your experience. <button>Accept</button></div>
<header><a href="/">BoilerCorp</a><nav><a href="/docs/page-1">Home</a> <a href="/pricing">Pricing plans menu</a> <a href="/docs/page-2">Guides</a></nav></header>
<main><article><h1>${title}</h1>
<p>${text}</p>
<h2>More details</h2>
<p>This article belongs to the help centre. It explains, step by step, what to do, why it matters, and where to look next when something is unclear.</p>
</article></main>
<footer><p>Copyright 2026 BoilerCorp. All rights reserved.</p><a href="/terms">Terms</a></footer>
</body></html>`;
}

export function startTestSite(count = 40): TestSite {
  const pages = new Map<string, { title: string; text: string }>();
  for (let i = 1; i <= count; i++)
    pages.set(`/docs/page-${i}`, {
      title: `Help topic number ${i}`,
      text: `Topic ${i} explains the feature numbered ${i} in plain words, with enough text for a reader to follow along comfortably.`,
    });
  if (count >= 7)
    pages.set("/docs/page-7", {
      title: "Refunds and returns",
      text: "The refund window is 45 days from delivery. Send the parcel back with the order number and we refund the card within a week.",
    });
  pages.set("/private/secret", { title: "Internal notes", text: "Staff only: the secret discount code is HUSH-42, never to be shared." });
  const site: TestSite = { origin: "", pages, requests: [], notModified: 0, userAgents: new Set(), stop: () => server.stop(true) };
  const xml = (body: string) => new Response(body, { headers: { "content-type": "application/xml" } });
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      site.requests.push(path);
      site.userAgents.add(request.headers.get("user-agent") ?? "");
      const base = site.origin;
      if (path === "/robots.txt") return new Response("User-agent: *\nDisallow: /private\n", { headers: { "content-type": "text/plain" } });
      if (path === "/sitemap.xml")
        return xml(
          `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${base}/sitemap-a.xml</loc></sitemap><sitemap><loc>${base}/sitemap-b.xml.gz</loc></sitemap></sitemapindex>`,
        );
      // Pages 1–19 here, the rest (but 40) gzipped; page 40 is reached only through /moved.
      const listed = [...pages.keys()].filter((p) => p !== `/docs/page-${count}`);
      const urlset = (paths: string[]) =>
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>${base}${p}</loc></url>`).join("")}</urlset>`;
      if (path === "/sitemap-a.xml") return xml(urlset(listed.slice(0, 19)));
      if (path === "/sitemap-b.xml.gz")
        return new Response(Bun.gzipSync(new TextEncoder().encode(urlset([...listed.slice(19), "/moved", "/missing"]))), {
          headers: { "content-type": "application/gzip" },
        });
      if (path === "/moved") return new Response(null, { status: 301, headers: { location: `/docs/page-${count}` } });
      const found = pages.get(path);
      if (!found) return new Response("not here", { status: 404 });
      const body = page(found.title, found.text);
      const etag = `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`;
      if (request.headers.get("if-none-match") === etag) {
        site.notModified++;
        return new Response(null, { status: 304, headers: { etag } });
      }
      return new Response(body, { headers: { "content-type": "text/html; charset=utf-8", etag } });
    },
  });
  site.origin = `http://127.0.0.1:${server.port}`;
  return site;
}
