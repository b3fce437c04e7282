// Help-centre imports (README "Knowledge sources"): every published article becomes a doc with its
// title, its body (HTML → markdown), its URL and its section (Zendesk) or collection (Intercom) as a
// tag. Re-running updates the same docs: an article is keyed by its URL.
//   * Zendesk Guide: the public Help Center API, GET {base}/api/v2/help_center/{locale}/articles.json
//     and sections.json, paginated by `next_page`; no credentials (public articles only).
//   * Intercom Articles: GET {base}/articles and /help_center/collections with the stored token as
//     a Bearer and an `Intercom-Version` header, paginated by `pages.next`.
// Every request goes through the outbound guard (src/sources/fetch.ts); answers are parsed with the
// bounded JSON reader; the number of API pages is capped (SYNC_LIMITS.apiPages, per list): a list
// longer than that is read in part, so the sync removes nothing and the source's reason says so.
import { DOC_LIMITS } from "../knowledge/docs.ts";
import { normalizeLanguage } from "../kit/language.ts";
import { parseJsonBounded } from "../http/json.ts";
import { politeFetch } from "./fetch.ts";
import { SOURCE_LIMITS, SYNC_LIMITS } from "./model.ts";
import { type Reader, type ReaderContext, SyncFailed } from "./reader.ts";
import { sourceToken } from "./service.ts";

export const INTERCOM_VERSION = "2.11";
const API_BYTES = 8 * 1024 * 1024;

type Json = Record<string, unknown>;

async function getJson(ctx: ReaderContext, url: string, host: string, headers: Record<string, string>): Promise<Json> {
  const fetched = await politeFetch(ctx.deps, url, { accept: "application/json", host, signal: ctx.signal, maxBytes: API_BYTES, headers });
  if (fetched.kind !== "ok")
    throw new SyncFailed(
      `the help centre's API answered ${fetched.kind === "failed" ? fetched.reason : fetched.kind === "gone" ? `HTTP ${fetched.status}` : "304"} for ${new URL(url).pathname}`,
    );
  try {
    const parsed = parseJsonBounded(new TextDecoder().decode(fetched.bytes));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Json;
  } catch {}
  throw new SyncFailed(`the help centre's API sent something other than a JSON object for ${new URL(url).pathname}`);
}

/**
 * Every item of a paginated list, from at most SYNC_LIMITS.apiPages pages: `items(page)` reads one
 * page's items, `next(page)` its follower's URL. A list with a page past the cap was read in part:
 * `of.unread` gets a line naming it (`of.what`), so the sync removes nothing (src/sources/sync.ts).
 */
async function* paged(
  ctx: ReaderContext,
  of: { first: string; what: string; unread: string[] },
  host: string,
  headers: Record<string, string>,
  items: (page: Json) => unknown,
  next: (page: Json) => unknown,
): AsyncGenerator<Json> {
  const { first } = of;
  let url: string | null = first;
  for (let n = 0; url; n++) {
    if (n === SYNC_LIMITS.apiPages) {
      of.unread.push(`the help centre's ${of.what} span more than ${SYNC_LIMITS.apiPages} API pages; those past them were not read`);
      return;
    }
    const page = await getJson(ctx, url, host, headers);
    const list = items(page);
    if (!Array.isArray(list)) throw new SyncFailed(`the help centre's API answered without a list for ${new URL(url).pathname}`);
    for (const item of list) if (item && typeof item === "object") yield item as Json;
    const following = next(page);
    url = typeof following === "string" && following !== "" ? following : null;
    // Never leave the help centre's host, whatever a page says.
    if (url && new URL(url, first).host !== host) throw new SyncFailed("the help centre's API pointed its next page at another host");
    if (url) url = new URL(url, first).href;
  }
}

const text = (value: unknown) => (typeof value === "string" ? value : typeof value === "number" ? String(value) : "");

export const readHelpCentre: Reader = async (ctx) => {
  const { source } = ctx;
  const base = source.settings.base_url!;
  const host = new URL(base).host;
  const cap = SOURCE_LIMITS.maxPages;
  let found = 0;
  const sections = new Map<string, string>();
  /** Lists read in part (the API-page cap): nothing is removed, and the source says why. */
  const unread: string[] = [];
  let articles: AsyncGenerator<Json>;
  let headers: Record<string, string> = {};
  if (source.kind === "zendesk") {
    const root = `${base}/api/v2/help_center/${encodeURIComponent(source.settings.locale ?? "en-us")}`;
    for await (const s of paged(
      ctx,
      { first: `${root}/sections.json?per_page=100`, what: "sections", unread },
      host,
      headers,
      (p) => p.sections,
      (p) => p.next_page,
    ))
      sections.set(text(s.id), text(s.name));
    articles = paged(
      ctx,
      { first: `${root}/articles.json?per_page=100`, what: "articles", unread },
      host,
      headers,
      (p) => p.articles,
      (p) => p.next_page,
    );
  } else {
    const token = sourceToken(ctx.deps, source);
    if (!token) throw new SyncFailed("no Intercom token is stored");
    headers = { authorization: `Bearer ${token}`, "intercom-version": INTERCOM_VERSION };
    const nextOf = (p: Json) => (p.pages as Json | undefined)?.next;
    for await (const c of paged(ctx, { first: `${base}/help_center/collections`, what: "collections", unread }, host, headers, (p) => p.data, nextOf))
      sections.set(text(c.id), text(c.name));
    articles = paged(ctx, { first: `${base}/articles`, what: "articles", unread }, host, headers, (p) => p.data, nextOf);
  }
  for await (const article of articles) {
    if (found >= cap) return { complete: false, found, unread: [...unread, `the help centre has more than ${cap} articles; those past them were not read`] };
    const published = source.kind === "zendesk" ? article.draft !== true : article.state === "published";
    const url = text(source.kind === "zendesk" ? article.html_url : article.url);
    if (!published || !/^https?:\/\//.test(url)) continue;
    found++;
    const title = text(article.title).trim().slice(0, DOC_LIMITS.title) || "Untitled";
    const converted = await ctx.extractor.extract(text(article.body), url, true);
    if (!converted.ok) {
      await ctx.emit({ kind: "failed", url, reason: converted.reason }, found);
      continue;
    }
    const body = converted.markdown;
    if (body.length > DOC_LIMITS.body)
      await ctx.emit({ kind: "failed", url, reason: `its text is ${body.length} characters; a doc holds at most ${DOC_LIMITS.body}` }, found);
    else if (body === "") await ctx.emit({ kind: "failed", url, reason: "the article has no text" }, found);
    else {
      const section = sections.get(text(source.kind === "zendesk" ? article.section_id : article.parent_id));
      // The article's locale (Zendesk: `locale`, else the one asked for; Intercom: its `default_locale`); else detected from its text.
      const language = normalizeLanguage(source.kind === "zendesk" ? (article.locale ?? source.settings.locale) : article.default_locale) ?? undefined;
      await ctx.emit({ kind: "content", url, title, body, tags: section ? [section.slice(0, DOC_LIMITS.tag)] : [], ...(language ? { language } : {}) }, found);
    }
  }
  return unread.length > 0 ? { complete: false, found, unread } : { complete: true, found };
};
