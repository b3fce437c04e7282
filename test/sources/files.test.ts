// Uploaded files as documents (README "Knowledge sources"): a PDF and a DOCX made here keep their
// headings; HTML, Markdown and text; a zip of them; and what must fail with its reason, never a
// 5xx: an encrypted PDF, a PDF without a text layer, a zip bomb, a DOCX bomb, a nested zip, an
// unknown type, limits at their boundaries. An upload of which nothing could be read is 400, each
// file's reason at its index.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { getDoc } from "../../src/knowledge/docs.ts";
import { FILE_LIMITS } from "../../src/sources/file-formats.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let token: string;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  token = await signIn(app, org.admin_email, org.password);
});
afterAll(() => app.close());

/** A one-page PDF with Helvetica lines at the given sizes (PDF 1.4, section 7.5 file structure). */
function pdf(lines: [number, string][], options: { encrypted?: boolean; pages?: number } = {}): Uint8Array {
  const content = lines.map(([size, text], i) => `BT /F1 ${size} Tf 72 ${720 - i * 40} Td (${text}) Tj ET`).join("\n");
  const pages = options.pages ?? 1;
  const kids = Array.from({ length: pages }, () => "3 0 R").join(" ");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  // The standard security handler with owner and user keys no empty password opens.
  const encrypt = options.encrypted
    ? ` /Encrypt << /Filter /Standard /V 1 /R 2 /O <${"ab".repeat(32)}> /U <${"cd".repeat(32)}> /P -4 >> /ID [<${"01".repeat(16)}> <${"01".repeat(16)}>]`
    : "";
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${encrypt} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/** A DOCX (a zip of WordprocessingML parts, ECMA-376) with a Heading 1 and paragraphs. */
function docx(extra: Record<string, Uint8Array> = {}): Uint8Array {
  const w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
  return zipSync({
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    ),
    "_rels/.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    ),
    "word/document.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${w}"><w:body><w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Shipping times</w:t></w:r></w:p><w:p><w:r><w:t>We ship every weekday before noon.</w:t></w:r></w:p><w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Abroad</w:t></w:r></w:p><w:p><w:r><w:t>Parcels abroad take a week.</w:t></w:r></w:p></w:body></w:document>`,
    ),
    ...extra,
  });
}

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64");
const upload = (files: { name: string; content: Uint8Array | string }[]) =>
  app.request("/api/knowledge/files", {
    headers: { authorization: `Bearer ${token}` },
    json: { files: files.map((f) => ({ name: f.name, content_base64: b64(f.content) })) },
  });
const reasonsOf = async (res: Response) => ((await res.json()) as any).error.details.map((d: { message: string }) => d.message);
const zeros = (n: number) => new Uint8Array(n);

describe("file uploads", () => {
  test("a PDF and a DOCX keep their headings; HTML, Markdown and text too", async () => {
    const res = await upload([
      {
        name: "guide.pdf",
        content: pdf([
          [24, "Getting started"],
          [12, "Install the app and sign in with your work email."],
          [18, "Billing"],
          [12, "Invoices are sent on the first of each month."],
        ]),
      },
      { name: "shipping.docx", content: docx() },
      {
        name: "faq.html",
        content:
          "<html><head><title>FAQ | Acme</title></head><body><nav>Menu Home</nav><main><h1>Frequently asked</h1><p>Yes, you can change your plan at any time, and the difference is prorated to the day.</p><script>steal()</script></main><footer>Acme footer</footer></body></html>",
      },
      { name: "notes.md", content: "# Release notes\n\nVersion 2 adds exports." },
      { name: "plain.txt", content: "Opening hours are nine to five." },
    ]);
    expect(res.status).toBe(201);
    const body = (await res.json()) as any;
    expect(body.failed).toEqual([]);
    const byFile = Object.fromEntries(
      await Promise.all(body.docs.map(async (d: { file: string; id: string }) => [d.file, await getDoc(app.deps, org.org_id, d.id)])),
    );
    expect(byFile["guide.pdf"].title).toBe("Getting started");
    expect(byFile["guide.pdf"].body).toBe(
      "# Getting started\n\nInstall the app and sign in with your work email.\n\n## Billing\n\nInvoices are sent on the first of each month.",
    );
    expect(byFile["shipping.docx"].title).toBe("Shipping times");
    expect(byFile["shipping.docx"].body).toBe("# Shipping times\n\nWe ship every weekday before noon.\n\n## Abroad\n\nParcels abroad take a week.");
    expect(byFile["faq.html"].title).toBe("Frequently asked");
    expect(byFile["faq.html"].body).not.toMatch(/steal|Menu Home|Acme footer/);
    expect(byFile["notes.md"].title).toBe("Release notes");
    expect(byFile["plain.txt"]).toMatchObject({ title: "Plain", body: "Opening hours are nine to five." });
  }, 60_000);

  test("a zip of files: each entry a document; a nested zip and an unknown type reported, the rest imported", async () => {
    const zip = zipSync({ "docs/a.md": strToU8("# Alpha\n\nFirst."), "b.docx": docx(), "inner.zip": zipSync({ "x.md": strToU8("x") }), "logo.png": zeros(10) });
    const res = await upload([{ name: "bundle.zip", content: zip }]);
    expect(res.status).toBe(201);
    const body = (await res.json()) as any;
    expect(body.docs.map((d: { file: string; title: string }) => [d.file, d.title]).sort()).toEqual([
      ["bundle.zip/b.docx", "Shipping times"],
      ["bundle.zip/docs/a.md", "Alpha"],
    ]);
    expect(body.failed).toEqual([
      { file: "bundle.zip/inner.zip", reason: "a zip inside a zip is not read" },
      { file: "bundle.zip/logo.png", reason: expect.stringContaining("files of this type are not read") },
    ]);
  }, 60_000);

  test("an encrypted PDF, a PDF without text, one page over the cap, a zip bomb and a DOCX bomb fail with their reasons (400, none imported)", async () => {
    const bomb = zipSync({ "big.md": zeros(FILE_LIMITS.unzippedBytes + 1) }, { level: 9 });
    expect(bomb.byteLength).toBeLessThan(FILE_LIMITS.fileBytes);
    const res = await upload([
      { name: "secret.pdf", content: pdf([[12, "hidden"]], { encrypted: true }) },
      { name: "scan.pdf", content: pdf([]) },
      { name: "bomb.zip", content: bomb },
      { name: "bomb.docx", content: docx({ "word/media/huge.bin": zeros(FILE_LIMITS.unzippedBytes) }) },
      { name: "broken.pdf", content: "%PDF-1.4 nothing else" },
      { name: "long.pdf", content: pdf([[12, "page"]], { pages: FILE_LIMITS.pdfPages + 1 }) },
    ]);
    expect(res.status).toBe(400);
    expect(await reasonsOf(res)).toEqual([
      "secret.pdf: the PDF is encrypted (password-protected)",
      "scan.pdf: the PDF has no text layer (scanned images?)",
      `bomb.zip: the zip unpacks to ${FILE_LIMITS.unzippedBytes + 1} bytes; at most ${FILE_LIMITS.unzippedBytes} (a zip bomb?)`,
      expect.stringMatching(/^bomb\.docx: the DOCX unpacks to \d+ bytes; at most \d+ \(a zip bomb\?\)$/),
      "broken.pdf: the file is not a readable PDF",
      `long.pdf: the PDF has ${FILE_LIMITS.pdfPages + 1} pages; at most ${FILE_LIMITS.pdfPages}`,
    ]);
  }, 60_000);

  test("limits at their boundaries: a zip of exactly the uncompressed cap is read; files per upload; file size", async () => {
    const atCap = zipSync({ "a.md": strToU8("# At the cap\n\nText."), "pad.bin": zeros(FILE_LIMITS.unzippedBytes - 19) }, { level: 9 });
    const res = await upload([{ name: "cap.zip", content: atCap }]);
    expect(res.status).toBe(201);
    expect(((await res.json()) as any).docs.map((d: { title: string }) => d.title)).toEqual(["At the cap"]);
    const pages = await upload([{ name: "pages.pdf", content: pdf([[12, "The same page again and again."]], { pages: FILE_LIMITS.pdfPages }) }]);
    expect(pages.status).toBe(201);
    const many = Array.from({ length: FILE_LIMITS.files + 1 }, (_, i) => ({ name: `f${i}.txt`, content: "text" }));
    expect((await upload(many)).status).toBe(400);
    expect((await upload(many.slice(0, FILE_LIMITS.files))).status).toBe(201);
    const over = await upload([{ name: "big.txt", content: "a".repeat(FILE_LIMITS.fileBytes + 1) }]);
    expect(over.status).toBe(400);
    const at = await upload([{ name: "big.txt", content: "a".repeat(FILE_LIMITS.fileBytes) }]);
    expect(at.status).toBe(400);
    expect(await reasonsOf(at)).toEqual([`big.txt: its text is ${FILE_LIMITS.fileBytes} characters; a document holds at most 200000`]);
  }, 120_000);
});
