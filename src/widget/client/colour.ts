// Colours an org sets for its widget (avatar_config.primary_color, text_color) made readable, by
// WCAG 2.2 contrast: relative luminance (https://www.w3.org/TR/WCAG22/#dfn-relative-luminance)
// and contrast ratio (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio), AA for text at 4.5:1.

/** The backgrounds the accent is text on (./styles.ts `--sa-bg` and `--sa-soft`, a bubble), light and dark. */
export const LIGHT_BACKGROUNDS = ["#ffffff", "#eef1f7"];
export const DARK_BACKGROUNDS = ["#1b1f28", "#272c38"];
const AA = 4.5;

const channels = (hex: string): [number, number, number] => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
const toHex = (rgb: number[]) => `#${rgb.map((v) => Math.round(v).toString(16).padStart(2, "0")).join("")}`;

/** Relative luminance of a #rrggbb colour, 0 (black) to 1 (white). */
export function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Contrast ratio of two #rrggbb colours, 1 to 21. */
export function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

/** Black or white, whichever reads better as text on `background`. */
export function readableOn(background: string): string {
  return contrast(background, "#000000") >= contrast(background, "#ffffff") ? "#000000" : "#ffffff";
}

/**
 * `colour` used as text (links, secondary buttons) on each of `backgrounds` (all light or all
 * dark): itself when it reaches AA on every one, else mixed towards black (light backgrounds) or
 * white (dark ones) until it does, so it keeps its hue as far as legibility allows.
 */
export function inkOn(colour: string, backgrounds: string[]): string {
  const reads = (c: string) => backgrounds.every((bg) => contrast(c, bg) >= AA);
  if (reads(colour)) return colour;
  const target = luminance(backgrounds[0]!) > 0.18 ? 0 : 255;
  const from = channels(colour);
  for (let step = 1; step <= 20; step++) {
    const mixed = toHex(from.map((v) => v + ((target - v) * step) / 20));
    if (reads(mixed)) return mixed;
  }
  return target === 0 ? "#000000" : "#ffffff";
}
