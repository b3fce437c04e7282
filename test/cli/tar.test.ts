// The backup file's container (src/cli/tar.ts): what it packs, the system `tar` reads, and what
// it unpacks, it refuses when damaged; names up to 99 bytes.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { packTar, TarError, unpackTar } from "../../src/cli/tar.ts";
import { tempDir } from "../support/process.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("ustar packing for backups", () => {
  const entries = [
    { name: "manifest.json", data: bytes('{"format":"x"}\n'), mode: 0o600 },
    { name: "empty", data: new Uint8Array(0), mode: 0o600 },
    { name: "a".repeat(99), data: new Uint8Array(513).fill(7), mode: 0o644 }, // a name at the limit, a body one past a block
  ];

  test("round trip, and the system tar lists and extracts the same files", async () => {
    const packed = packTar(entries, 1_700_000_000);
    const files = unpackTar(packed);
    expect([...files.keys()]).toEqual(entries.map((e) => e.name));
    for (const e of entries) expect(files.get(e.name)).toEqual(e.data);

    const path = join(tempDir(), "t.tar");
    writeFileSync(path, packed);
    const list = Bun.spawnSync(["tar", "-tvf", path]);
    expect(list.exitCode).toBe(0);
    const lines = list.stdout.toString().trim().split("\n");
    expect(lines.map((l) => l.split(/\s+/).at(-1))).toEqual(entries.map((e) => e.name));
    expect(lines[0]).toStartWith("-rw-------");
    const body = Bun.spawnSync(["tar", "-xOf", path, "manifest.json"]);
    expect(body.stdout.toString()).toBe('{"format":"x"}\n');
  });

  test("a name of 100 bytes is refused", () => {
    expect(() => packTar([{ name: "a".repeat(100), data: new Uint8Array(0), mode: 0o600 }], 0)).toThrow(TarError);
  });

  test("damaged, truncated or foreign archives are refused", () => {
    const packed = packTar(entries, 0);
    const flipped = packed.slice();
    flipped[20] = flipped[20]! ^ 1; // inside the first name: the checksum no longer matches
    expect(() => unpackTar(flipped)).toThrow("damaged tar header");
    expect(() => unpackTar(packed.slice(0, 512 + 100))).toThrow("truncated archive");
    expect(() => unpackTar(packed.slice(0, packed.length - 1024))).toThrow("truncated archive"); // no end-of-archive blocks
    expect(() => unpackTar(new Uint8Array(1024).fill(65))).toThrow("not a tar archive");
    const link = packed.slice();
    link[156] = 0x32; // "2": a symbolic link
    link.set(bytes("000000\0 "), 148);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : link[i]!;
    link.set(bytes(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
    expect(() => unpackTar(link)).toThrow("unexpected entry type");
  });
});
