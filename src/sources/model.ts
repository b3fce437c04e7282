// Knowledge sources: their kinds, limits and checks, and how one is shown (README "Knowledge
// sources"). A source reads a website (a start page or a sitemap) or a help centre (Zendesk Guide,
// Intercom Articles) and keeps one doc per page in sync.
import type { knowledgeSources, SourceCounts, SourceKind, SourceSettings } from "../db/schema/index.ts";
import type { ErrorDetail } from "../errors.ts";
import { normalizeLanguage } from "../kit/language.ts";
import { normaliseUrl } from "../net/guard.ts";

export type SourceRow = typeof knowledgeSources.$inferSelect;

export const SOURCE_KINDS = ["website", "zendesk", "intercom"] as const satisfies readonly SourceKind[];

export const SOURCE_LIMITS = {
  name: 120,
  url: 2048,
  /** Include and exclude patterns, each. */
  patterns: 50,
  pattern: 256,
  /** Pages per source: the default, and the most a source may ask for. */
  defaultPages: 500,
  maxPages: 5000,
  /** Sources per org. */
  perOrg: 50,
  /** Seconds between scheduled syncs: default one day, at least one hour, at most 30 days. */
  defaultInterval: 86_400,
  minInterval: 3600,
  maxInterval: 30 * 86_400,
  token: 512,
  locale: 16,
  /** Help-centre locales imported, and hreflang languages a website takes, each list. */
  locales: 20,
  languages: 50,
} as const;

/** A help centre's locale: Zendesk's `en-us`, `pt-br`; Intercom's `en`, `pt-BR`, `zh-CN`. */
const LOCALE = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/;

/** Limits of one sync (README "Knowledge sources"). */
export const SYNC_LIMITS = {
  /** A page as sent, before parsing; a larger one fails with its reason. */
  pageBytes: 2 * 1024 * 1024,
  /** Fetching one page (headers and body). */
  pageTimeoutMs: 15_000,
  /** Extracting one page's text, off the event loop (src/sources/extract.ts). */
  extractTimeoutMs: 10_000,
  /** One whole sync; a sync that runs out of time fails and leaves the previous docs. */
  syncTimeoutMs: 30 * 60_000,
  /** Redirects followed per page (each hop checked by the outbound guard, same site only). */
  redirects: 5,
  /** Requests in flight per host. */
  perHost: 2,
  /** A sitemap (decompressed), and the sitemaps one sync reads (the start one and those indexes name). */
  sitemapBytes: 10 * 1024 * 1024,
  sitemaps: 50,
  /** `<loc>` entries read from one sitemap: the sitemaps.org protocol's own limit per file. */
  sitemapEntries: 50_000,
  /** Reading one sitemap (gunzip, scan, admission), off the event loop (src/sources/sitemap-reader.ts). */
  sitemapTimeoutMs: 20_000,
  /** Help-centre API pages read per sync. */
  apiPages: 200,
} as const;

export const EMPTY_COUNTS: SourceCounts = { found: 0, imported: 0, updated: 0, unchanged: 0, failed: 0, removed: 0, conflicts: 0 };

export interface SourceInput {
  kind: SourceKind;
  name: string;
  start_url?: string;
  base_url?: string;
  locale?: string;
  locales?: string[];
  languages?: string[];
  include?: string[];
  exclude?: string[];
  max_pages?: number;
  interval_seconds?: number;
  token?: string;
}

function checkUrl(raw: string | undefined, path: string, allowLoopback: boolean, problems: ErrorDetail[]) {
  if (raw === undefined || raw === "") {
    problems.push({ path, message: "is required" });
    return;
  }
  try {
    normaliseUrl(raw, { allowLoopback });
  } catch (error) {
    problems.push({ path, message: (error as Error).message });
  }
}

/** Checks a new source (or the merged result of a change); returns its settings or the problems by field. */
export function checkSource(input: SourceInput, allowLoopback: boolean): { problems: ErrorDetail[]; settings: SourceSettings } {
  const problems: ErrorDetail[] = [];
  if (input.name.trim() === "" || input.name.length > SOURCE_LIMITS.name)
    problems.push({ path: "/name", message: `must be 1 to ${SOURCE_LIMITS.name} characters` });
  const settings: SourceSettings = {};
  for (const key of ["include", "exclude"] as const) {
    const list = input[key];
    if (list === undefined) continue;
    if (input.kind !== "website") problems.push({ path: `/${key}`, message: "applies to websites only" });
    list.forEach((p, i) => {
      if (!p.startsWith("/") || /[\s\x00-\x1f\x7f]/.test(p))
        problems.push({ path: `/${key}/${i}`, message: "must be a path starting with / (* matches any characters)" });
    });
    settings[key] = list;
  }
  if (input.kind === "website") {
    checkUrl(input.start_url, "/start_url", allowLoopback, problems);
    settings.start_url = input.start_url;
    settings.max_pages = input.max_pages ?? SOURCE_LIMITS.defaultPages;
    if (input.languages !== undefined) {
      const languages = input.languages.map((l) => normalizeLanguage(l));
      languages.forEach((l, i) => {
        if (l === null) problems.push({ path: `/languages/${i}`, message: "must be a language code such as es" });
      });
      if (input.languages.length === 0 || input.languages.length > SOURCE_LIMITS.languages)
        problems.push({ path: "/languages", message: `must name 1 to ${SOURCE_LIMITS.languages} languages` });
      settings.languages = [...new Set(languages.filter((l): l is string => l !== null))];
    }
  } else {
    checkUrl(input.base_url, "/base_url", allowLoopback, problems);
    settings.base_url = input.base_url?.replace(/\/+$/, "");
    if (input.kind === "zendesk") {
      if (input.locale !== undefined && !LOCALE.test(input.locale)) problems.push({ path: "/locale", message: "must be a language tag such as en-us" });
      settings.locale = (input.locale ?? "en-us").toLowerCase();
    }
    if (input.locales !== undefined) {
      if (input.locales.length === 0 || input.locales.length > SOURCE_LIMITS.locales)
        problems.push({ path: "/locales", message: `must name 1 to ${SOURCE_LIMITS.locales} locales` });
      input.locales.forEach((l, i) => {
        if (l.length > SOURCE_LIMITS.locale || !LOCALE.test(l)) problems.push({ path: `/locales/${i}`, message: "must be a locale such as en-us or pt-BR" });
      });
      // Zendesk's locales are lower case in its URLs; Intercom's keep theirs (`pt-BR`).
      settings.locales = [...new Set(input.kind === "zendesk" ? input.locales.map((l) => l.toLowerCase()) : input.locales)];
    }
    if (input.kind === "intercom" && !input.token) problems.push({ path: "/token", message: "is required: an Intercom access token" });
  }
  if (input.kind !== "intercom" && input.token !== undefined) problems.push({ path: "/token", message: "applies to Intercom only" });
  if (input.kind === "website" && input.locales !== undefined) problems.push({ path: "/locales", message: "applies to help centres only" });
  if (input.kind !== "website" && input.languages !== undefined) problems.push({ path: "/languages", message: "applies to websites only" });
  return { problems, settings };
}

/** A pattern as a regular expression matching a path (with its query): `*` stands for any characters, else a prefix. */
export function patternRegExp(pattern: string): RegExp {
  const escaped = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}`);
}

export function sourceView(row: SourceRow) {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    ...(row.settings.start_url ? { start_url: row.settings.start_url } : {}),
    ...(row.settings.base_url ? { base_url: row.settings.base_url } : {}),
    ...(row.settings.locale ? { locale: row.settings.locale } : {}),
    ...(row.settings.locales ? { locales: row.settings.locales } : {}),
    ...(row.settings.languages ? { languages: row.settings.languages } : {}),
    ...(row.kind === "website"
      ? { include: row.settings.include ?? [], exclude: row.settings.exclude ?? [], max_pages: row.settings.max_pages ?? SOURCE_LIMITS.defaultPages }
      : {}),
    ...(row.kind === "intercom" ? { token_set: Boolean(row.credentials.token) } : {}),
    interval_seconds: row.intervalSeconds,
    status: row.status,
    // Why the last sync failed, or (`ready`) why it read only part of the source and removed nothing.
    ...((row.status === "failed" || row.status === "ready") && row.lastError ? { reason: row.lastError } : {}),
    counts: row.counts ?? EMPTY_COUNTS,
    progress: row.status === "syncing" ? (row.progress ?? { done: 0, found: 0 }) : null,
    last_sync_at: row.lastSyncAt?.toISOString() ?? null,
    next_sync_at: row.nextSyncAt.toISOString(),
    created_at: row.createdAt.toISOString(),
  };
}
