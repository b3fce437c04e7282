// Help-centre imports (README "Knowledge sources"): every published article becomes a doc with its
// title, its body (HTML → markdown), its URL and its section (Zendesk) or collection (Intercom) as a
// tag. Re-running updates the same docs: an article is keyed by its URL. With `locales`, each
// article once per locale it is in (its language set from the locale), its versions linked as
// translations of one another by the article's id (src/knowledge/translations.ts).
//   * Zendesk Guide: the public Help Center API, GET {base}/api/v2/help_center/{locale}/articles.json
//     and sections.json per locale, paginated by `next_page`; no credentials (public articles only).
//   * Intercom Articles: GET {base}/articles and /help_center/collections with the stored token as
//     a Bearer and an `Intercom-Version` header, paginated by `pages.next`; an article's other
//     locales are in its `translated_content` (keyed by locale), its own is `default_locale`.
// Every request goes through the outbound guard (src/sources/fetch.ts); answers are parsed with the
// bounded JSON reader; the number of API pages is capped (SYNC_LIMITS.apiPages, per list): a list
// longer than that is read in part, so the sync removes nothing and the source's reason says so.
import { DOC_LIMITS } from "../knowledge/docs.ts";
import { parseJsonBounded } from "../http/json.ts";
import { normalizeLanguage } from "../kit/language.ts";
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
      `the help centre's ` +
        `API answered ${fetched.kind === "failed" ? fetched.reason : fetched.kind === "gone" ? `HTTP ${fetched.status}` : "304"} for ${new URL(url).pathname}`,
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

/** One article in one locale, as both APIs come to give it. */
interface Entry {
  url: string;
  title: string;
  html: string;
  published: boolean;
  section: string;
  language: string | null;
  /** The article's id: what its versions in other locales share. */
  key: string;
}

/** Zendesk: each locale asked for is a list of its own (the article id is the same in every locale). */
async function* zendeskEntries(ctx: ReaderContext, base: string, host: string, sections: Map<string, string>, unread: string[]): AsyncGenerator<Entry> {
  const { settings } = ctx.source;
  for (const locale of settings.locales ?? [settings.locale ?? "en-us"]) {
    const root = `${base}/api/v2/help_center/${encodeURIComponent(locale)}`;
    const what = (list: string) => (settings.locales ? `${list} in ${locale}` : list);
    for await (const s of paged(
      ctx,
      { first: `${root}/sections.json?per_page=100`, what: what("sections"), unread },
      host,
      {},
      (p) => p.sections,
      (p) => p.next_page,
    ))
      sections.set(text(s.id), text(s.name));
    for await (const a of paged(
      ctx,
      { first: `${root}/articles.json?per_page=100`, what: what("articles"), unread },
      host,
      {},
      (p) => p.articles,
      (p) => p.next_page,
    ))
      yield {
        url: text(a.html_url),
        title: text(a.title),
        html: text(a.body),
        published: a.draft !== true,
        section: text(a.section_id),
        language: normalizeLanguage(text(a.locale) || locale),
        key: text(a.id),
      };
  }
}

/**
 * Intercom: one list; an article's versions are its default-language fields and its
 * `translated_content` by locale. Without `locales`, the default language only (as before).
 */
function* intercomEntries(article: Json, locales: string[] | undefined): Generator<Entry> {
  const main = text(article.default_locale) || null;
  const versions: [string | null, Json][] = locales
    ? locales.flatMap((l): [string, Json][] => {
        const content = l === main ? article : ((article.translated_content as Json | undefined)?.[l] as Json | undefined);
        return content && typeof content === "object" ? [[l, content]] : [];
      })
    : [[main, article]];
  for (const [locale, content] of versions)
    yield {
      url: text(content.url),
      title: text(content.title),
      html: text(content.body),
      published: content.state === "published",
      section: text(article.parent_id),
      language: normalizeLanguage(locale),
      key: text(article.id),
    };
}

export const readHelpCentre: Reader = async (ctx) => {
  const { source } = ctx;
  const base = source.settings.base_url!;
  const host = new URL(base).host;
  const cap = SOURCE_LIMITS.maxPages;
  let found = 0;
  const sections = new Map<string, string>();
  /** Lists read in part (the API-page cap): nothing is removed, and the source says why. */
  const unread: string[] = [];
  let entries: AsyncGenerator<Entry>;
  if (source.kind === "zendesk") entries = zendeskEntries(ctx, base, host, sections, unread);
  else {
    const token = sourceToken(ctx.deps, source);
    if (!token) throw new SyncFailed("no Intercom token is stored");
    const headers = { authorization: `Bearer ${token}`, "intercom-version": INTERCOM_VERSION };
    const nextOf = (p: Json) => (p.pages as Json | undefined)?.next;
    for await (const c of paged(ctx, { first: `${base}/help_center/collections`, what: "collections", unread }, host, headers, (p) => p.data, nextOf))
      sections.set(text(c.id), text(c.name));
    const articles = paged(ctx, { first: `${base}/articles`, what: "articles", unread }, host, headers, (p) => p.data, nextOf);
    entries = (async function* () {
      for await (const article of articles) yield* intercomEntries(article, source.settings.locales);
    })();
  }
  for await (const entry of entries) {
    if (found >= cap) return { complete: false, found, unread: [...unread, `the help centre has more than ${cap} articles; those past them were not read`] };
    const { url } = entry;
    if (!entry.published || !/^https?:\/\//.test(url)) continue;
    found++;
    const title = entry.title.trim().slice(0, DOC_LIMITS.title) || "Untitled";
    const converted = await ctx.extractor.extract(entry.html, url, true);
    if (!converted.ok) {
      await ctx.emit({ kind: "failed", url, reason: converted.reason }, found);
      continue;
    }
    const body = converted.markdown;
    if (body.length > DOC_LIMITS.body)
      await ctx.emit({ kind: "failed", url, reason: `its text is ${body.length} characters; a doc holds at most ${DOC_LIMITS.body}` }, found);
    else if (body === "") await ctx.emit({ kind: "failed", url, reason: "the article has no text" }, found);
    else {
      const section = sections.get(entry.section);
      await ctx.emit(
        {
          kind: "content",
          url,
          title,
          body,
          tags: section ? [section.slice(0, DOC_LIMITS.tag)] : [],
          ...(entry.language ? { language: entry.language } : {}),
          ...(entry.key ? { translationKey: `${source.kind}:${entry.key}` } : {}),
        },
        found,
      );
    }
  }
  return unread.length > 0 ? { complete: false, found, unread } : { complete: true, found };
};
