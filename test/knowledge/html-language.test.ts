// A document's language as an import finds it: `<html lang>` of an uploaded or imported page
// (src/knowledge/html-to-text.ts) and of a crawled one (src/sources/html-markdown.ts).
import { describe, expect, test } from "bun:test";
import { htmlToText } from "../../src/knowledge/html-to-text.ts";
import { pageMarkdown } from "../../src/sources/html-markdown.ts";

const page = (lang: string | null) =>
  `<!doctype html><html${lang === null ? "" : ` lang="${lang}"`}><head><title>Restablecer la contraseña</title></head><body><main><h1>Restablecer la contraseña</h1><p>${"Abre la página de inicio de sesión y elige «¿Olvidaste tu contraseña?». ".repeat(4)}</p></main></body></html>`;

describe("<html lang>", () => {
  test("an imported page's tag is kept as its primary subtag", () => {
    expect(htmlToText(page("es-ES"), "https://help.example.com/es/reset").language).toBe("es");
    expect(pageMarkdown(page("pt_BR"), "https://help.example.com/pt/reset").language).toBe("pt");
  });

  test("no tag, or one that is not a language tag, says nothing (the text's language is detected instead)", () => {
    expect(htmlToText(page(null), "https://help.example.com/reset").language).toBeUndefined();
    expect(htmlToText(page("not a tag!"), "https://help.example.com/reset").language).toBeUndefined();
    expect(pageMarkdown(page(""), "https://help.example.com/reset").language).toBeUndefined();
  });
});
