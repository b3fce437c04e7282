// A zip's entries inflated under a cap, for the files thread only (src/sources/file-formats.ts).
// A zip's headers may lie: an entry declaring 100 bytes can inflate to a gigabyte, and fflate's
// unzipSync inflates such an entry whole into a buffer of the declared size (dropping the rest
// but spending the CPU: a minute of a core for 1 GiB). So the archive is fed to fflate's streaming
// Unzip in small chunks and every inflated chunk is counted as it comes: an entry is stopped as
// soon as it passes what it declared (or the per-entry cap), the archive as soon as everything
// inflated passes the total cap. One chunk of COMPRESSED_CHUNK bytes inflates to at most about
// 1,032 times its size (DEFLATE's longest match per bit, RFC 1951 section 3.2.5), so no more than
// that is ever inflated past a cap.
import { Unzip, UnzipInflate, unzipSync } from "fflate";

/** A reason a file could not be read, shown to the person who sent it. */
export class Refused extends Error {}

const COMPRESSED_CHUNK = 16 * 1024;

export interface ZipLimits {
  entries: number;
  /** One entry, inflated. */
  entryBytes: number;
  /** Every entry together, inflated. */
  totalBytes: number;
}

export interface ZipContents {
  files: { name: string; bytes: Uint8Array }[];
  /** Entries not inflated, with the reason (the caller reports them). */
  skipped: { name: string; reason: string }[];
}

/** The central directory's entry count and declared sizes, checked without inflating anything. */
function checkDeclared(bytes: Uint8Array, limits: ZipLimits, what: string): void {
  let entries = 0;
  let total = 0;
  try {
    unzipSync(bytes, {
      filter: (file) => {
        entries++;
        total += file.originalSize;
        return false;
      },
    });
  } catch {
    throw new Refused(`the ${what} is not a readable zip archive`);
  }
  if (entries > limits.entries) throw new Refused(`the ${what} holds ${entries} entries; at most ${limits.entries}`);
  if (total > limits.totalBytes) throw new Refused(`the ${what} unpacks to ${total} bytes; at most ${limits.totalBytes} (a zip bomb?)`);
}

/**
 * The entries of a zip (directories left out), each inflated at most to what it declares and to
 * `entryBytes`, all together at most to `totalBytes`. `skip(name)` names entries not to inflate
 * (their reason is reported). Throws Refused for an archive that is not a zip, holds too many
 * entries, or inflates past what it declares or the total cap.
 */
export function readZip(bytes: Uint8Array, limits: ZipLimits, what: string, skip: (name: string) => string | null = () => null): ZipContents {
  checkDeclared(bytes, limits, what);
  const out: ZipContents = { files: [], skipped: [] };
  let total = 0;
  let entries = 0;
  // Set from fflate's callbacks, which TypeScript's narrowing does not follow.
  let refusal = null as Refused | null;
  const unzip = new Unzip((file) => {
    if (refusal) return;
    if (++entries > limits.entries) {
      refusal = new Refused(`the ${what} holds more than ${limits.entries} entries`);
      return;
    }
    if (file.name.endsWith("/")) return;
    const reason = skip(file.name);
    if (reason) {
      out.skipped.push({ name: file.name, reason });
      return;
    }
    if (file.originalSize !== undefined && file.originalSize > limits.entryBytes) {
      out.skipped.push({ name: file.name, reason: `the file is larger than ${limits.entryBytes} bytes` });
      return;
    }
    const cap = Math.min(file.originalSize ?? limits.entryBytes, limits.entryBytes);
    const chunks: Uint8Array[] = [];
    let size = 0;
    file.ondata = (error, chunk, final) => {
      if (refusal) return;
      if (error) {
        refusal = new Refused(`the ${what}'s entry ${file.name} is damaged`);
        return;
      }
      size += chunk.byteLength;
      total += chunk.byteLength;
      if (size > cap) {
        refusal = new Refused(
          file.originalSize !== undefined && size > file.originalSize
            ? `the ${what}'s entry ${file.name} inflates past the ${file.originalSize} bytes it declares (a zip bomb?)`
            : `the ${what}'s entry ${file.name} inflates past ${limits.entryBytes} bytes`,
        );
        file.terminate();
        return;
      }
      if (total > limits.totalBytes) {
        refusal = new Refused(`the ${what} unpacks to more than ${limits.totalBytes} bytes (a zip bomb?)`);
        file.terminate();
        return;
      }
      chunks.push(chunk);
      if (final) out.files.push({ name: file.name, bytes: join(chunks, size) });
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    for (let at = 0; at < bytes.byteLength && !refusal; at += COMPRESSED_CHUNK)
      unzip.push(bytes.subarray(at, at + COMPRESSED_CHUNK), at + COMPRESSED_CHUNK >= bytes.byteLength);
  } catch {
    refusal ??= new Refused(`the ${what} is not a readable zip archive`);
  }
  if (refusal) throw refusal;
  return out;
}

function join(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return all;
}
