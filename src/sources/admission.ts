// Which addresses a website source reads (README "Knowledge sources"): http(s) on the start URL's
// host, not a file that is no page (images, archives, …), within the include and exclude patterns,
// and allowed by robots.txt for the agent `svc-agents` (RFC 9309, read with robots-parser). Built
// from plain data, so the sitemap thread (src/sources/sitemap-worker.ts) applies the very rule the
// crawl applies, and the patterns are compiled once, not once per address.
import robotsParser from "robots-parser";
import { patternRegExp } from "./model.ts";

export const ROBOTS_AGENT = "svc-agents";
const NOT_PAGES = /\.(png|jpe?g|gif|webp|svg|ico|pdf|zip|gz|tar|mp4|mp3|webm|css|js|json|woff2?|ttf|exe|dmg)$/i;

/** What decides admission; structured-cloneable, so it can be posted to a thread. */
export interface AdmissionRules {
  /** The start URL: its host is the only one read. */
  site: string;
  include?: string[];
  exclude?: string[];
  /** robots.txt as read (empty when it answered 4xx: no rules, RFC 9309 section 2.3.1.3). */
  robots: { url: string; text: string };
}

export type Robots = ReturnType<typeof robotsParser>;

export function admission(rules: AdmissionRules): { admit: (raw: string) => boolean; robots: Robots } {
  const host = new URL(rules.site).host;
  const include = (rules.include ?? []).map(patternRegExp);
  const exclude = (rules.exclude ?? []).map(patternRegExp);
  const robots = robotsParser(rules.robots.url, rules.robots.text);
  const admit = (raw: string): boolean => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return false;
    }
    if (url.host !== host || (url.protocol !== "https:" && url.protocol !== "http:") || NOT_PAGES.test(url.pathname)) return false;
    const path = url.pathname + url.search;
    if (include.length > 0 && !include.some((re) => re.test(path))) return false;
    if (exclude.some((re) => re.test(path))) return false;
    return robots.isAllowed(url.href, ROBOTS_AGENT) !== false;
  };
  return { admit, robots };
}
