// Connector icons (docs/interface.md 8.3). Candidates, in order: the server's `serverInfo.icons`
// (an https URL same-site with the server and passing the guard, or an inline `data:` URL), then
// the server origin's /favicon.ico. Whatever the source, the bytes must be PNG, JPEG, WebP or GIF
// by their magic numbers (the declared type must agree; SVG, which can carry script, never
// passes) and at most ICON_MAX_BYTES. The result is stored and served as a data: URL, so the
// dashboard never loads anything from the third party; null means "show the generic mark".
import { isIP } from "node:net";
import { getDomain } from "tldts";
import { type GuardOptions, guardedFetch, readCapped } from "../net/guard.ts";

export const ICON_MAX_BYTES = 64 * 1024;
const ICON_FETCH_MS = 5000;
const RASTER = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;
type Raster = (typeof RASTER)[number];

/** The raster type the bytes really are, or null. */
export function sniffRaster(bytes: Uint8Array): Raster | null {
  const b = (i: number) => bytes[i] ?? -1;
  if (b(0) === 0x89 && b(1) === 0x50 && b(2) === 0x4e && b(3) === 0x47 && b(4) === 0x0d && b(5) === 0x0a && b(6) === 0x1a && b(7) === 0x0a) return "image/png";
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return "image/jpeg";
  if (b(0) === 0x47 && b(1) === 0x49 && b(2) === 0x46 && b(3) === 0x38 && (b(4) === 0x37 || b(4) === 0x39) && b(5) === 0x61) return "image/gif";
  if (b(0) === 0x52 && b(1) === 0x49 && b(2) === 0x46 && b(3) === 0x46 && b(8) === 0x57 && b(9) === 0x45 && b(10) === 0x42 && b(11) === 0x50)
    return "image/webp";
  return null;
}

function toDataUrl(bytes: Uint8Array, declared?: string): string | null {
  if (bytes.byteLength === 0 || bytes.byteLength > ICON_MAX_BYTES) return null;
  const type = sniffRaster(bytes);
  if (!type) return null;
  if (declared !== undefined && declared !== "" && declared.toLowerCase() !== type) return null;
  return `data:${type};base64,${Buffer.from(bytes).toString("base64")}`;
}

/** An inline icon: `data:image/<raster>;base64,…` whose bytes are what it says. */
export function iconFromDataUrl(src: string): string | null {
  const match = /^data:([a-z0-9.+/-]+);base64,([A-Za-z0-9+/=\s]+)$/i.exec(src);
  if (!match || src.length > ICON_MAX_BYTES * 1.4 + 100) return null;
  const declared = match[1]!.toLowerCase();
  if (!(RASTER as readonly string[]).includes(declared)) return null;
  return toDataUrl(Buffer.from(match[2]!, "base64"), declared);
}

/**
 * Same-site (docs/interface.md 8.3): the same registrable domain, by the Public Suffix List including
 * its private section (so attacker.github.io and victim.github.io are different sites). IP
 * literals and names without a registrable domain (localhost) must match exactly.
 */
export function sameSite(iconHost: string, serverHost: string): boolean {
  if (iconHost === serverHost) return true;
  const site = (host: string) => (isIP(host.replace(/^\[|\]$/g, "")) ? null : getDomain(host, { allowPrivateDomains: true }));
  const a = site(iconHost);
  return a !== null && a === site(serverHost);
}

async function fetchIcon(url: string, guard: GuardOptions, declared?: string): Promise<string | null> {
  try {
    const response = await guardedFetch(url, { headers: { accept: RASTER.join(", ") }, signal: AbortSignal.timeout(ICON_FETCH_MS) }, guard);
    if (!response.ok) {
      await response.body?.cancel();
      return null;
    }
    return toDataUrl(await readCapped(response, ICON_MAX_BYTES), declared);
  } catch {
    return null; // blocked, redirected, too large, unreachable: no icon from here
  }
}

export async function deriveIcon(serverUrl: string, serverInfo: Record<string, unknown>, guard: GuardOptions): Promise<string | null> {
  const server = new URL(serverUrl);
  const icons = Array.isArray(serverInfo.icons) ? serverInfo.icons.slice(0, 10) : [];
  for (const icon of icons) {
    if (typeof icon !== "object" || icon === null || typeof (icon as { src?: unknown }).src !== "string") continue;
    const { src, mimeType } = icon as { src: string; mimeType?: unknown };
    const declared = typeof mimeType === "string" ? mimeType : undefined;
    if (src.startsWith("data:")) {
      const inline = iconFromDataUrl(src);
      if (inline && (!declared || inline.startsWith(`data:${declared.toLowerCase()};`))) return inline;
      continue;
    }
    let url: URL;
    try {
      url = new URL(src, server);
    } catch {
      continue;
    }
    const httpsOrDevLoopback = url.protocol === "https:" || (guard.allowLoopback && url.protocol === "http:");
    if (!httpsOrDevLoopback || !sameSite(url.hostname, server.hostname)) continue;
    const fetched = await fetchIcon(url.toString(), guard, declared);
    if (fetched) return fetched;
  }
  return fetchIcon(new URL("/favicon.ico", server).toString(), guard);
}
