// The page kernel (src/html): markup that skips escaping is made only there. Every page builds
// `Html` through the `html` tag, `attrs` or `joinHtml`; a `new Html(` anywhere else in src/ is a
// place where text could reach a page unescaped, so this test fails on it. The kernel's helpers are
// checked at their edges.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { attrs, html, joinHtml } from "../../src/html/html.ts";
import { renderMarkdown } from "../../src/html/markdown.ts";

const ROOT = join(import.meta.dir, "../..");
const KERNEL = "src/html/";
const RAW = /\bnew\s+Html\s*\(/;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Each `file:line` outside the kernel that constructs Html by hand. */
export function rawHtmlOutsideKernel(files: readonly { path: string; text: string }[]): string[] {
  return files
    .filter((f) => !f.path.startsWith(KERNEL))
    .flatMap((f) => f.text.split("\n").flatMap((line, i) => (RAW.test(line) ? [`${f.path}:${i + 1}`] : [])));
}

describe("raw markup only in the kernel", () => {
  test("no `new Html(` in src/ outside src/html/", () => {
    const files = sourceFiles("src").map((path) => ({ path, text: readFileSync(join(ROOT, path), "utf8") }));
    expect(files.length).toBeGreaterThan(100);
    expect(rawHtmlOutsideKernel(files)).toEqual([]);
  });

  test("the check finds a made-up offender, and leaves the kernel alone", () => {
    const offender = {
      path: "src/dashboard/made-up.ts",
      text: 'import { Html } from "../html/html.ts";\nconst x = new Html(`<b>${name}</b>`);\nconst y = new  Html ("<i>");\n',
    };
    const kernel = { path: "src/html/html.ts", text: "return new Html(out);" };
    const clean = { path: "src/dashboard/clean.ts", text: "const x = html`<b>${name}</b>`; // no new Html here? it says so: NewHtml(" };
    expect(rawHtmlOutsideKernel([offender, kernel, clean])).toEqual(["src/dashboard/made-up.ts:2", "src/dashboard/made-up.ts:3"]);
  });
});

describe("kernel helpers", () => {
  test("html escapes every interpolated value, arrays included; Html passes through", () => {
    const name = `<script>"x" & 'y'</script>`;
    expect(html`<p>${name}</p>`.value).toBe("<p>&#60;script&#62;&#34;x&#34; &#38; &#39;y&#39;&#60;/script&#62;</p>");
    expect(html`${[name, html`<b>ok</b>`]}`.value).toBe("&#60;script&#62;&#34;x&#34; &#38; &#39;y&#39;&#60;/script&#62;<b>ok</b>");
    expect(html`${undefined}${null}${false}${0}`.value).toBe("0");
  });

  test("attrs: values escaped, true a bare boolean attribute, false and null nothing; a name not ours throws", () => {
    expect(attrs({ value: `a"b<c`, checked: true, disabled: false, "aria-describedby": null, maxlength: 5 }).value).toBe(
      ' value="a&#34;b&#60;c" checked maxlength="5"',
    );
    expect(attrs({}).value).toBe("");
    expect(() => attrs({ 'onclick="x" data-a': "1" })).toThrow("not an attribute name");
    expect(() => attrs({ "": true })).toThrow("not an attribute name");
    expect(html`<input${attrs({ value: "<x>" })}>`.value).toBe('<input value="&#60;x&#62;">');
  });

  test("joinHtml joins fragments with an escaped separator", () => {
    expect(joinHtml([html`<b>a</b>`, html`<i>b</i>`], " & ").value).toBe("<b>a</b> &#38; <i>b</i>");
    expect(joinHtml([]).value).toBe("");
  });

  test("markdown: raw HTML shown as text, script links dropped, only https images", () => {
    const out = renderMarkdown(
      "# Hi\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) [y](https://example.com) ![i](http://example.com/a.png) ![j](https://example.com/b.png)",
    ).value;
    expect(out).toContain("<h1>Hi</h1>");
    expect(out).not.toContain("<script>");
    expect(out).toContain("&#60;script&#62;");
    expect(out).toContain('<a href="#" rel="nofollow noopener">x</a>');
    expect(out).toContain('<a href="https://example.com" rel="nofollow noopener">y</a>');
    expect(out).not.toContain('src="http://example.com/a.png"');
    expect(out).toContain('<img src="https://example.com/b.png" alt="j">');
  });
});
