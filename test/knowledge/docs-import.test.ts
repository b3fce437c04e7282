// Doc import (README "Setup tools and doc import"): a page fetched through the outbound guard — https only, no private
// address, no redirect, size and time capped, documented content types — or an uploaded markdown
// file, each stored as a document and recorded in the activity log. The partner site is a loopback
// server (development mode lets the guard reach loopback, and nothing else private).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { systemActor } from "../../src/kit/actor.ts";
import { listActivity } from "../../src/activity/log.ts";
import { DOC_LIMITS, listDocs } from "../../src/knowledge/docs.ts";
import { fetchDocText, IMPORT_LIMITS, importDocFromUrl, importMarkdownFile, markdownFileText } from "../../src/knowledge/docs-import.ts";
import { htmlToText } from "../../src/knowledge/html-to-text.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { appErrorOf } from "../support/errors.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let site: ReturnType<typeof Bun.serve>;
const requested: string[] = [];
let hung: (() => void) | undefined;
const actor = systemActor("test");

const PAGE = `<!doctype html><html><head><title>Returns &amp; refunds</title><style>p { color: red }</style><script>var secret = "not text";</script></head>
<body><nav><a href="/">Home</a></nav><main><h1>Returns</h1><p>Return any item within <strong>30 days</strong>; see <a href="/policy">the policy</a>.</p>
<ul><li>Unused items</li><li>With the receipt</li></ul><pre><code>refund --order 42
  --reason damaged</code></pre></main></body></html>`;

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development" });
  org = await seedOrg(app);
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      requested.push(path);
      const typed = (body: string | Uint8Array, type: string) => new Response(body as BodyInit, { headers: { "content-type": type } });
      switch (path) {
        case "/returns":
          return typed(PAGE, "text/html; charset=utf-8");
        case "/guide.md":
          return typed("Intro line\n\n# Shipping guide\r\n\nWe ship **daily**.\n", "text/markdown");
        case "/notes.txt":
          return typed("Plain notes without a heading.", "text/plain; charset=utf-8");
        case "/meta-charset":
          return typed(
            new Uint8Array([
              ...new TextEncoder().encode('<html><head><meta charset="windows-1252"><title>Caf'),
              0xe9,
              ...new TextEncoder().encode("</title></head><body><p>ok</p></body></html>"),
            ]),
            "text/html",
          );
        case "/latin1":
          return typed(new Uint8Array([0x43, 0x61, 0x66, 0xe9]), "text/plain; charset=iso-8859-1");
        case "/manual.pdf":
          return typed("%PDF-1.7", "application/pdf");
        case "/moved":
          return Response.redirect("http://169.254.169.254/latest/meta-data/", 302);
        case "/gone":
          return new Response("no", { status: 404, headers: { "content-type": "text/html" } });
        case "/empty":
          return typed("<html><head><title>Nothing</title></head><body><script>x()</script></body></html>", "text/html");
        case "/at-limit":
        case "/over-limit": {
          // Markup the import drops, padded to exactly the response cap (or one byte more).
          const head = "<html><head><title>Big</title></head><body><p>Small text.</p><script>";
          const tail = "</script></body></html>";
          const size = IMPORT_LIMITS.responseBytes + (path === "/over-limit" ? 1 : 0);
          return typed(head + "x".repeat(size - head.length - tail.length) + tail, "text/html");
        }
        case "/text-at-limit":
          return typed("a".repeat(DOC_LIMITS.body), "text/plain");
        case "/text-over-limit":
          return typed("a".repeat(DOC_LIMITS.body + 1), "text/plain");
        case "/slow":
          return new Promise<Response>((resolve) => {
            hung = () => resolve(typed("late", "text/plain"));
          });
      }
      return new Response("?", { status: 500 });
    },
  });
  app.hosts.set("help.partner.example", ["127.0.0.1"]);
  app.hosts.set("intranet.partner.example", ["10.0.0.5"]);
  app.hosts.set("mixed.partner.example", ["127.0.0.1", "192.168.1.9"]);
}, 30_000);
afterAll(async () => {
  hung?.();
  site.stop(true);
  await app.close();
});

const at = (path: string) => `http://help.partner.example:${site.port}${path}`;

const refusal = appErrorOf;

describe("from a URL", () => {
  test("HTML becomes readable markdown-ish text titled by the page, stored with its URL and recorded", async () => {
    const doc = await importDocFromUrl(app.deps, org.org_id, actor, { url: at("/returns"), tags: ["policy"] });
    expect(doc.title).toBe("Returns & refunds");
    expect(doc.url).toBe(at("/returns"));
    expect(doc.status).toBe("published");
    expect(doc.tags).toEqual(["policy"]);
    expect(doc.body).toContain("# Returns");
    expect(doc.body).toContain("Return any item within **30 days**; see [the policy](http://help.partner.example:" + site.port + "/policy).");
    expect(doc.body).toContain("- Unused items\n- With the receipt");
    expect(doc.body).toContain("```\nrefund --order 42\n  --reason damaged\n```");
    expect(doc.body).not.toContain("secret");
    expect(doc.body).not.toContain("color");
    expect(doc.body).not.toContain("Home");
    const activity = await listActivity(app.deps, org.org_id, { action: "doc.imported", objectId: doc.id });
    expect(activity.items).toHaveLength(1);
    expect(activity.items[0]!.summary).toMatchObject({ source: "url", host: `help.partner.example:${site.port}`, status: "published" });
  });

  test("markdown and plain text are kept as they are; markdown is titled by its first heading, text by its address", async () => {
    const md = await fetchDocText(app.deps, at("/guide.md"));
    expect(md).toMatchObject({ title: "Shipping guide", body: "Intro line\n\n# Shipping guide\n\nWe ship **daily**." });
    const txt = await fetchDocText(app.deps, at("/notes.txt"));
    expect(txt).toMatchObject({ title: `help.partner.example:${site.port}/notes.txt`, body: "Plain notes without a heading." });
    expect((await fetchDocText(app.deps, at("/latin1"))).body).toBe("Café");
    expect((await fetchDocText(app.deps, at("/meta-charset"))).title).toBe("Café");
  });

  test("a title given by the caller wins; a draft stays a draft", async () => {
    const doc = await importDocFromUrl(app.deps, org.org_id, actor, { url: at("/guide.md"), title: "Our shipping", status: "draft" });
    expect(doc).toMatchObject({ title: "Our shipping", status: "draft" });
  });

  test("the guard refuses a private address (by name or literal), a mixed answer, and http outside development: 400 on /url, nothing fetched", async () => {
    const before = requested.length;
    for (const url of [
      "https://intranet.partner.example/wiki",
      "https://169.254.169.254/latest/meta-data/",
      "https://10.1.2.3/",
      `http://mixed.partner.example:${site.port}/returns`,
      "https://user:pw@help.partner.example/",
    ]) {
      const error = await refusal(importDocFromUrl(app.deps, org.org_id, actor, { url }));
      expect(error.status).toBe(400);
      expect(error.code).toBe("validation_failed");
      expect(error.details?.[0]?.path).toBe("/url");
    }
    // Outside development the same loopback page is refused for its scheme: https only.
    const production = { ...app.deps, guard: { ...app.deps.guard, allowLoopback: false } };
    const http = await refusal(fetchDocText(production, at("/returns")));
    expect(http.status).toBe(400);
    expect(http.details?.[0]?.message).toContain("https");
    expect(requested.length).toBe(before);
  });

  test("a redirect is refused naming its Location, and never followed", async () => {
    const before = requested.length;
    const error = await refusal(importDocFromUrl(app.deps, org.org_id, actor, { url: at("/moved") }));
    expect(error.status).toBe(422);
    expect(error.code).toBe("import_failed");
    expect(error.message).toContain("169.254.169.254");
    expect(requested.slice(before)).toEqual(["/moved"]);
  });

  test("an unsupported type, an error status and a page without text are 422; nothing is stored", async () => {
    const count = (await listDocs(app.deps, org.org_id, { limit: 100, offset: 0 })).length;
    const pdf = await refusal(importDocFromUrl(app.deps, org.org_id, actor, { url: at("/manual.pdf") }));
    expect(pdf.status).toBe(422);
    expect(pdf.message).toContain("application/pdf");
    expect((await refusal(importDocFromUrl(app.deps, org.org_id, actor, { url: at("/gone") }))).message).toContain("404");
    expect((await refusal(importDocFromUrl(app.deps, org.org_id, actor, { url: at("/empty") }))).status).toBe(422);
    expect((await listDocs(app.deps, org.org_id, { limit: 100, offset: 0 })).length).toBe(count);
  });

  test("a connection failure is a 422 that says so without the other side's internals", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const port = closed.port;
    closed.stop(true);
    const error = await refusal(fetchDocText(app.deps, `http://help.partner.example:${port}/`));
    expect(error.status).toBe(422);
    expect(error.message).toBe("The document cannot be imported: the page could not be fetched (connection or TLS failure).");
  });

  test("the response cap at its boundary: exactly the cap is read, one byte more is refused", async () => {
    expect((await fetchDocText(app.deps, at("/at-limit"))).body).toBe("Small text.");
    const error = await refusal(fetchDocText(app.deps, at("/over-limit")));
    expect(error.status).toBe(422);
    expect(error.message).toContain(`${IMPORT_LIMITS.responseBytes} bytes`);
  });

  test("a document's length at its boundary: exactly the limit is stored, one more character is refused, not truncated", async () => {
    expect((await importDocFromUrl(app.deps, org.org_id, actor, { url: at("/text-at-limit") })).body.length).toBe(DOC_LIMITS.body);
    const error = await refusal(importDocFromUrl(app.deps, org.org_id, actor, { url: at("/text-over-limit") }));
    expect(error.status).toBe(422);
    expect(error.message).toContain(String(DOC_LIMITS.body));
  });

  test("a page that does not arrive in time is refused when the deadline passes", async () => {
    const arrived = new Promise<void>((resolve) => {
      const check = () => (requested.includes("/slow") ? resolve() : setTimeout(check, 5));
      check();
    });
    const pending = refusal(fetchDocText(app.deps, at("/slow")));
    await arrived;
    app.clock.advance(IMPORT_LIMITS.timeoutMs - 1);
    let settled = false;
    void pending.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    app.clock.advance(1);
    const error = await pending;
    expect(error.status).toBe(422);
    expect(error.message).toContain(`${IMPORT_LIMITS.timeoutMs / 1000} s`);
    hung?.();
  });

  test("options at their limits: title and tags", async () => {
    const bad = await refusal(
      importDocFromUrl(app.deps, org.org_id, actor, {
        url: at("/notes.txt"),
        title: "t".repeat(DOC_LIMITS.title + 1),
        tags: Array(DOC_LIMITS.tags + 1).fill("x"),
      }),
    );
    expect(bad.details?.map((d) => d.path)).toEqual(["/title", "/tags"]);
    const ok = await importDocFromUrl(app.deps, org.org_id, actor, {
      url: at("/notes.txt"),
      title: "t".repeat(DOC_LIMITS.title),
      tags: Array(DOC_LIMITS.tags).fill("x"),
    });
    expect(ok.title.length).toBe(DOC_LIMITS.title);
  });
});

describe("from an uploaded markdown file", () => {
  test("titled by its first heading, else by the file name; stored and recorded", async () => {
    const doc = await importMarkdownFile(app.deps, org.org_id, actor, { file_name: "faq.md", content: "Setext title\n===\n\nBody **text**.\n" });
    expect(doc).toMatchObject({ title: "Setext title", body: "Setext title\n===\n\nBody **text**.", url: null });
    expect(markdownFileText("getting-started.markdown", "```\n# not a heading\n```\nhello").title).toBe("Getting started");
    expect(markdownFileText("notes_2024.txt", new TextEncoder().encode("## Second level\nx")).title).toBe("Second level");
    const activity = await listActivity(app.deps, org.org_id, { action: "doc.imported", objectId: doc.id });
    expect(activity.items[0]!.summary).toMatchObject({ source: "file", file_name: "faq.md" });
  });

  test("refused: another extension, a name too long, bytes that are not UTF-8, control characters, no text", async () => {
    const path = async (fileName: string, content: string | Uint8Array) =>
      (await refusal(importMarkdownFile(app.deps, org.org_id, actor, { file_name: fileName, content }))).details?.[0]?.path;
    expect(await path("report.pdf", "# x")).toBe("/file_name");
    expect(await path(`${"n".repeat(IMPORT_LIMITS.fileName - 2)}.md`, "# x")).toBe("/file_name");
    expect(markdownFileText(`${"n".repeat(IMPORT_LIMITS.fileName - 3)}.md`, "# x").title).toBe("x");
    expect(await path("a.md", new Uint8Array([0x23, 0x20, 0xff, 0xfe]))).toBe("/content");
    expect(await path("a.md", "# x\u0000y")).toBe("/content");
    expect(await path("a.md", "   \n ")).toBe("/content");
  });

  test("the upload cap at its boundary: the most UTF-8 a document can hold is accepted, one byte more is not", async () => {
    const euro = new TextEncoder().encode("€".repeat(DOC_LIMITS.body));
    expect(euro.byteLength).toBe(IMPORT_LIMITS.uploadBytes);
    expect((await importMarkdownFile(app.deps, org.org_id, actor, { file_name: "big.md", content: euro })).body.length).toBe(DOC_LIMITS.body);
    const over = new Uint8Array(IMPORT_LIMITS.uploadBytes + 1).fill(0x61);
    const error = await refusal(importMarkdownFile(app.deps, org.org_id, actor, { file_name: "big.md", content: over }));
    expect(error.status).toBe(400);
    expect(error.details?.[0]?.path).toBe("/content");
  });
});

test("htmlToText: entities, ordered lists, relative links, no page title", () => {
  const { title, body } = htmlToText(
    `<h1>Fees &mdash; 2025</h1><ol><li>One &lt;two&gt;</li><li><a href="../terms">Terms</a> &#x26; <a href="javascript:alert(1)">more</a></li></ol>`,
    "https://shop.example/help/fees/",
  );
  expect(title).toBe("Fees — 2025");
  expect(body).toBe("# Fees — 2025\n\n1. One <two>\n2. [Terms](https://shop.example/help/terms) & more");
});

test("htmlToText: optional end tags left out (no </head>, unclosed <p>) lose nothing; an <svg>'s title is not the page's", () => {
  expect(
    htmlToText("<html><head><title>T</title><meta charset=utf-8><body><p>Hello<p>World<svg><title>icon</title></svg></body>", "https://a.example/"),
  ).toEqual({ title: "T", body: "Hello\n\nWorld" });
  expect(htmlToText("<body><svg><title>icon</title></svg><h1>Head</h1>x", "https://a.example/")).toEqual({ title: "Head", body: "# Head\n\nx" });
});

test("hostile text stays linear: a 200,000-space <pre>, a heading line of spaces, unclosed link brackets", () => {
  const started = performance.now();
  expect(htmlToText(`<pre>${" ".repeat(DOC_LIMITS.body)}x</pre>`, "https://a.example/").body).toBe("```\n" + " ".repeat(DOC_LIMITS.body) + "x\n```");
  expect(markdownFileText("a.md", `# a${" ".repeat(DOC_LIMITS.body - 4)}x`).title).toBe("a x");
  expect(htmlToText(`<p>${"[](".repeat(50_000)}</p>`, "https://a.example/").body).toHaveLength(150_000);
  // Quadratic backtracking took 47 s on the first; linear work takes milliseconds.
  expect(performance.now() - started).toBeLessThan(2000);
});

test("htmlToText: a link around nothing readable (an icon) is dropped with its bracket; br is a line break", () => {
  expect(htmlToText(`<p>See <a href="/x"><svg><path/></svg></a>the <a href="/docs">docs</a>.<br>Next</p>`, "https://a.example/").body).toBe(
    "See the [docs](https://a.example/docs).\nNext",
  );
});
