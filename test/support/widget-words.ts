// What a customer reads and hears of the widget (its visible text, and the aria-labels and
// placeholders assistive technology reads), and which English catalogue sentences are left in a
// text: the checks of a widget in another language (test/widget/*locale*, *rtl*).
import type { Page } from "playwright-core";
import { CATALOGUES, type MessageKey, MESSAGE_KEYS } from "../../src/i18n/catalogue.ts";

/** The widget's visible text and its elements' aria-label, placeholder and title attributes, one per line. */
export function widgetWords(page: Page): Promise<string> {
  return page.evaluate(() => {
    const root = document.querySelector("svc-agents-widget")?.shadowRoot;
    if (!root) return "";
    const parts: string[] = [];
    for (const el of Array.from(root.children) as HTMLElement[]) parts.push(el.innerText);
    for (const el of root.querySelectorAll("*"))
      for (const name of ["aria-label", "placeholder", "title"]) {
        const value = el.getAttribute(name);
        if (value) parts.push(value);
      }
    return parts.join("\n");
  });
}

/** The literal pieces of an ICU message outside its `{…}` arguments (plural branches included are skipped). */
function literalPieces(message: string): string[] {
  const pieces: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of message) {
    if (ch === "{") {
      if (depth === 0) pieces.push(current);
      current = "";
      depth++;
    } else if (ch === "}") depth--;
    else if (depth === 0) current += ch;
  }
  pieces.push(current);
  return pieces.map((p) => p.trim()).filter((p) => p.length >= 8);
}

/**
 * The English sentences (pieces of 8 characters or more, outside placeholders) of the given keys
 * found in `text` — none should be, for a widget in `language`; pieces the language's own
 * sentence shares with English (a name, a URL) do not count.
 */
export function englishLeft(text: string, language: string, keys: readonly MessageKey[] = MESSAGE_KEYS): string[] {
  const own = CATALOGUES[language]!;
  return keys.flatMap((key) =>
    literalPieces(CATALOGUES.en![key])
      .filter((piece) => text.includes(piece) && !own[key].includes(piece))
      .map((piece) => `${key}: ${piece}`),
  );
}
