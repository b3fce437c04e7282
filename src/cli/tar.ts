// The backup file's container: a POSIX ustar archive (IEEE Std 1003.1, "pax" utility, ustar
// interchange format) of a few regular files, so `tar -tvf backup.tar` lists it. Only what the
// backup needs: regular files, names under 100 bytes, all in memory.
const BLOCK = 512;
const encoder = new TextEncoder();

export interface TarEntry {
  name: string;
  data: Uint8Array<ArrayBuffer>;
  mode: number;
}

export class TarError extends Error {}

const padded = (size: number) => Math.ceil(size / BLOCK) * BLOCK;

function octal(value: number, width: number): Uint8Array<ArrayBuffer> {
  return encoder.encode(`${value.toString(8).padStart(width - 1, "0")}\0`);
}

function text(block: Uint8Array<ArrayBuffer>, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return new TextDecoder().decode(end === -1 ? field : field.subarray(0, end));
}

/** The header checksum: the byte sum of the header with the checksum field read as eight spaces. */
function checksum(header: Uint8Array<ArrayBuffer>): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return sum;
}

export function packTar(entries: TarEntry[], mtimeSeconds: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(entries.reduce((n, e) => n + BLOCK + padded(e.data.length), 2 * BLOCK)); // ends with two zero blocks
  let at = 0;
  for (const entry of entries) {
    const name = encoder.encode(entry.name);
    if (name.length === 0 || name.length > 99) throw new TarError(`tar entry name too long: ${entry.name}`);
    const header = out.subarray(at, at + BLOCK);
    header.set(name, 0);
    header.set(octal(entry.mode, 8), 100);
    header.set(octal(0, 8), 108); // uid
    header.set(octal(0, 8), 116); // gid
    header.set(octal(entry.data.length, 12), 124);
    header.set(octal(mtimeSeconds, 12), 136);
    header[156] = 0x30; // "0": a regular file
    header.set(encoder.encode("ustar\u000000"), 257);
    header.set(encoder.encode(`${checksum(header).toString(8).padStart(6, "0")}\0 `), 148);
    out.set(entry.data, at + BLOCK);
    at += BLOCK + padded(entry.data.length);
  }
  return out;
}

/** The regular files of a ustar archive by name. Throws TarError on anything else or a damaged archive. */
export function unpackTar(bytes: Uint8Array<ArrayBuffer>): Map<string, Uint8Array<ArrayBuffer>> {
  const files = new Map<string, Uint8Array<ArrayBuffer>>();
  let at = 0;
  while (at + BLOCK <= bytes.length) {
    const header = bytes.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) return files;
    if (text(header, 257, 5) !== "ustar") throw new TarError("not a tar archive");
    if (Number.parseInt(text(header, 148, 8).trim(), 8) !== checksum(header)) throw new TarError("damaged tar header");
    const type = header[156];
    if (type !== 0x30 && type !== 0) throw new TarError("unexpected entry type in the archive");
    const size = Number.parseInt(text(header, 124, 12).trim(), 8);
    if (!Number.isSafeInteger(size) || size < 0 || at + BLOCK + size > bytes.length) throw new TarError("truncated archive");
    files.set(text(header, 0, 100), bytes.subarray(at + BLOCK, at + BLOCK + size));
    at += BLOCK + padded(size);
  }
  throw new TarError("truncated archive");
}
