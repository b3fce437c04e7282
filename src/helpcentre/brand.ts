// The help centre in the org's colours and with its picture, reusing the widget's appearance (the
// active agent's avatar_config: primary_color, image_url; docs/decisions.md "Help centre:
// branding"). Both go into the stylesheet, so a page costs no extra query: the header takes the
// primary colour, with black or white text, whichever reads (WCAG AA); the
// picture is served from the help centre's own origin (/logo), fetched through the outbound guard
// like an article's images.
import { getAgent } from "../agents/service.ts";
import type { Deps } from "../deps.ts";
import { HELP_CSS } from "./styles.ts";
import { fetchImage, type MediaCache } from "./media.ts";
import { paths, type Site } from "./urls.ts";

interface Look {
  primary: string | null;
  image: string | null;
}

async function lookOf(deps: Pick<Deps, "db" | "statements">, orgId: string): Promise<Look> {
  const look = ((await getAgent(deps, orgId))?.avatarConfig ?? {}) as Record<string, unknown>;
  const primary = typeof look.primary_color === "string" && /^#[0-9a-fA-F]{6}$/.test(look.primary_color) ? look.primary_color.toLowerCase() : null;
  const image = typeof look.image_url === "string" && /^https:\/\/[^\s"'<>]+$/i.test(look.image_url) ? look.image_url : null;
  return { primary, image };
}

/** WCAG 2.x relative luminance of #rrggbb. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/**
 * Black or white, whichever contrasts more with `hex` (WCAG 2.x contrast ratio). The better of the
 * two is never below 4.58:1 (where they are equal, luminance 0.179), so the header's text always
 * reaches AA.
 */
export function textOn(hex: string): "#000000" | "#ffffff" {
  const l = luminance(hex);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000000" : "#ffffff";
}

export async function brandedCss(deps: Pick<Deps, "db" | "statements">, site: Site): Promise<Response> {
  const look = await lookOf(deps, site.row.orgId);
  const text = look.primary ? textOn(look.primary) : null;
  const header = look.primary
    ? `header.site { background: ${look.primary}; color: ${text}; } header.site .name { color: ${text}; } header.site nav.languages a { color: ${text}; }\n`
    : "";
  const logo = look.image
    ? `header.site .name::before { content: ""; display: inline-block; width: 2rem; height: 2rem; margin-inline-end: .6rem; vertical-align: middle; border-radius: 50%; background: url("${paths.logo(site)}") center / cover; }\n`
    : "";
  return new Response(HELP_CSS + header + logo, {
    headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=300", "x-content-type-options": "nosniff" },
  });
}

/** The org's picture from our origin; 404 when it has none or it cannot be read as an image. */
export async function logo(deps: Pick<Deps, "db" | "guard" | "log" | "now" | "statements">, cache: MediaCache, site: Site): Promise<Response> {
  const { image } = await lookOf(deps, site.row.orgId);
  return fetchImage(deps, cache, image);
}
