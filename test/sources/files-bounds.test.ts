// Uploads under attack (README "Knowledge sources", docs/decisions.md "Uploads: zip entries counted
// as they inflate, and a bounded number of reading threads"): a zip entry that declares 100 bytes
// and inflates to 1 GiB used to take a core for a minute (fflate inflated all of it into a buffer
// of the declared size) and its first 100 bytes were then imported; and every upload got a thread
// of its own. Now the entry is stopped as soon as it inflates past what it declares, and at most
// FILE_READERS.threads uploads are read at once, FILE_READERS.waiting more wait, the next is 503.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { constants, createDeflateRaw, deflateRawSync } from "node:zlib";
import { FILE_READERS } from "../../src/sources/files.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { longestHealthz } from "../support/stall.ts";

let app: TestApp;
let auth: { authorization: string };

beforeAll(async () => {
  app = await createTestApp();
  const org = await seedOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
}, 60_000);
afterAll(() => app.close());

/**
 * Raw DEFLATE (RFC 1951) of `mib` MiB of "a", as one stream of Huffman blocks with no stored block
 * in it: what makes fflate's inflate into a buffer of the declared size run to the end, dropping
 * what does not fit. About 1 KiB per MiB; node's zlib makes a GiB of it in about a second.
 */
async function deflatedAs(mib: number): Promise<Buffer> {
  const z = createDeflateRaw({ level: 1, strategy: constants.Z_RLE });
  const out: Buffer[] = [];
  z.on("data", (d: Buffer) => out.push(d));
  const ended = new Promise((resolve) => z.on("end", resolve));
  const chunk = Buffer.alloc(1 << 20, "a");
  for (let i = 0; i < mib; i++) if (!z.write(chunk)) await new Promise((resolve) => z.once("drain", resolve));
  z.end();
  await ended;
  return Buffer.concat(out);
}

/** A zip of one deflated entry whose headers declare `declared` bytes (PKWARE APPNOTE 4.3.7, 4.3.12, 4.3.16). */
function lyingZip(name: string, data: Buffer, declared: number): Buffer {
  const n = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8); // deflate
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(declared, 22);
  local.writeUInt16LE(n.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(declared, 24);
  central.writeUInt16LE(n.length, 28);
  const cdOffset = local.length + n.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + n.length, 12);
  end.writeUInt32LE(cdOffset, 16);
  return Buffer.concat([local, n, data, central, n, end]);
}

const upload = (files: { name: string; content: Uint8Array }[]) =>
  app.request("/api/knowledge/files", {
    headers: auth,
    json: { files: files.map((f) => ({ name: f.name, content_base64: Buffer.from(f.content).toString("base64") })) },
  });

describe("a zip entry that lies about its size", () => {
  test("declares 100 bytes, inflates to 1 GiB: refused as soon as it passes 100, within seconds, /healthz answered meanwhile", async () => {
    const zip = lyingZip("big.md", await deflatedAs(1024), 100);
    expect(zip.length).toBeLessThan(2 * 1024 * 1024);
    const began = performance.now();
    const { result: res, longestMs } = await longestHealthz((path) => app.request(path), upload([{ name: "bomb.zip", content: zip }]));
    const tookMs = performance.now() - began;
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details: { message: string }[] } };
    expect(body.error.details.map((d) => d.message)).toEqual(["bomb.zip: the zip's entry big.md inflates past the 100 bytes it declares (a zip bomb?)"]);
    expect(longestMs).toBeLessThan(1_500);
    // Generous: the bug took the upload's whole minute; stopping at the cap takes milliseconds of inflating.
    expect(tookMs).toBeLessThan(20_000);
  }, 120_000);

  test("an entry that declares its size truthfully is read, up to the byte", async () => {
    const text = Buffer.from("# Honest\n\nThe size it says.");
    const res = await upload([{ name: "ok.zip", content: lyingZip("ok.md", deflateRawSync(text), text.length) }]);
    expect(res.status).toBe(201);
    expect(((await res.json()) as { docs: { title: string }[] }).docs.map((d) => d.title)).toEqual(["Honest"]);
    // One byte more than declared is refused.
    const over = await upload([{ name: "over.zip", content: lyingZip("ok.md", deflateRawSync(text), text.length - 1) }]);
    expect(over.status).toBe(400);
    // A DOCX is a zip too: mammoth is given its parts only once they were inflated under the caps.
    const docx = await upload([{ name: "bomb.docx", content: lyingZip("word/document.xml", await deflatedAs(64), 100) }]);
    expect(docx.status).toBe(400);
    expect(((await docx.json()) as { error: { details: { message: string }[] } }).error.details.map((d) => d.message)).toEqual([
      "bomb.docx: the DOCX's entry word/document.xml inflates past the 100 bytes it declares (a zip bomb?)",
    ]);
  }, 60_000);
});

describe("reading threads", () => {
  test(`${FILE_READERS.threads} uploads read at once and ${FILE_READERS.waiting} waiting; the next is 503 with Retry-After, and a waiting one is read when a thread frees`, async () => {
    const file = [{ name: "a.md", content: Buffer.from("# Waited\n\nIt waited its turn.") }];
    // The threads and all but one waiting place taken, as long uploads would take them.
    const held = await Promise.all(Array.from({ length: FILE_READERS.threads }, () => app.deps.fileReaders.acquire()));
    const waiting = Array.from({ length: FILE_READERS.waiting - 1 }, () => app.deps.fileReaders.acquire());
    const last = upload(file); // the last waiting place
    for (let i = 0; i < 500 && app.deps.fileReaders.load().waiting < FILE_READERS.waiting; i++) await Bun.sleep(10);
    expect(app.deps.fileReaders.load()).toEqual({ running: FILE_READERS.threads, waiting: FILE_READERS.waiting });
    const refused = await upload(file);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe(String(FILE_READERS.retryAfter));
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("busy");
    for (const h of held) h.release();
    for (const w of waiting) (await w).release();
    const res = await last;
    expect(res.status).toBe(201);
    expect(app.deps.fileReaders.load()).toEqual({ running: 0, waiting: 0 });
  }, 60_000);
});
