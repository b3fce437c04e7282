// What a recording is, read from its own bytes (never from what the client says): the container
// (WAV: RIFF/WAVE; WebM: EBML with DocType webm; Ogg: OggS) and its duration — WAV from its
// header (data size over byte rate), WebM from its clusters' timecodes plus their blocks' (the
// Matroska element layout, which MediaRecorder writes without a Duration), Ogg from the last
// page's granule position (Opus runs at 48 kHz, RFC 7845 section 4).
export type AudioContainer = "wav" | "webm" | "ogg";

export interface AudioInfo {
  container: AudioContainer;
  /** What the provider is told (the file name's extension and the part's media type). */
  mediaType: string;
  seconds: number;
}

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));

function wav(b: Uint8Array): number | null {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let byteRate = 0;
  for (let at = 12; at + 8 <= b.length; ) {
    const id = ascii(b, at, 4);
    const size = view.getUint32(at + 4, true);
    if (id === "fmt " && at + 16 <= b.length) byteRate = view.getUint32(at + 16, true);
    if (id === "data") {
      if (!byteRate) return null;
      // Recorders that stream write 0 or 0xFFFFFFFF as the size: count what is there.
      const bytes = size === 0 || size === 0xffffffff ? b.length - at - 8 : Math.min(size, b.length - at - 8);
      return bytes / byteRate;
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

/** A Matroska variable-length integer at `at`: its value (null when all ones: unknown size) and length. */
function vint(b: Uint8Array, at: number, keepMarker: boolean): { value: number | null; length: number } | null {
  const first = b[at];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23;
  if (length > 8 || at + length > b.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let ones = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + b[at + i]!;
    if (b[at + i] !== 0xff) ones = false;
  }
  return { value: !keepMarker && ones ? null : value, length };
}

const SEGMENT = 0x18538067,
  CLUSTER = 0x1f43b675,
  INFO = 0x1549a966,
  SCALE = 0x2ad7b1,
  TIMECODE = 0xe7,
  SIMPLE_BLOCK = 0xa3,
  BLOCK_GROUP = 0xa0,
  BLOCK = 0xa1,
  DOCTYPE = 0x4282,
  EBML = 0x1a45dfa3;
const CONTAINERS = new Set([SEGMENT, CLUSTER, INFO, BLOCK_GROUP, EBML]);

function webm(b: Uint8Array): number | null {
  let scale = 1_000_000; // nanoseconds per tick, the default
  let cluster = 0;
  let last = 0;
  let docType = "";
  for (let at = 0, steps = 0; at < b.length && steps < 1_000_000; steps++) {
    const id = vint(b, at, true);
    if (!id) break;
    const size = vint(b, at + id.length, false);
    if (!size) break;
    const body = at + id.length + size.length;
    if (CONTAINERS.has(id.value!)) {
      at = body; // descend: unknown-size segments and clusters (a live recording) end at the next cluster
      continue;
    }
    if (size.value === null) break;
    const read = (n: number) => {
      let v = 0;
      for (let i = 0; i < n && body + i < b.length; i++) v = v * 256 + b[body + i]!;
      return v;
    };
    if (id.value === DOCTYPE) docType = ascii(b, body, size.value);
    else if (id.value === SCALE) scale = read(size.value) || scale;
    else if (id.value === TIMECODE) cluster = read(size.value);
    else if (id.value === SIMPLE_BLOCK || id.value === BLOCK) {
      const track = vint(b, body, false);
      if (track && body + track.length + 2 <= b.length) {
        const relative = new DataView(b.buffer, b.byteOffset + body + track.length, 2).getInt16(0);
        last = Math.max(last, cluster + relative);
      }
    }
    at = body + size.value;
  }
  if (docType !== "webm" && docType !== "matroska") return null;
  // The last block starts at `last`; an Opus frame is 20 ms long.
  return (last * scale) / 1e9 + 0.02;
}

function ogg(b: Uint8Array): number | null {
  for (let at = b.length - 27; at >= 0; at--) {
    if (b[at] !== 0x4f || ascii(b, at, 4) !== "OggS") continue;
    const view = new DataView(b.buffer, b.byteOffset + at + 6, 8);
    const granule = Number(view.getBigUint64(0, true));
    return granule / 48_000;
  }
  return null;
}

/** The container and duration of a recording, or null when it is none we take. */
export function audioInfo(b: Uint8Array): AudioInfo | null {
  if (b.length >= 44 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WAVE") {
    const seconds = wav(b);
    return seconds === null ? null : { container: "wav", mediaType: "audio/wav", seconds };
  }
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) {
    const seconds = webm(b);
    return seconds === null ? null : { container: "webm", mediaType: "audio/webm", seconds };
  }
  if (b.length >= 27 && ascii(b, 0, 4) === "OggS") {
    const seconds = ogg(b);
    return seconds === null ? null : { container: "ogg", mediaType: "audio/ogg", seconds };
  }
  return null;
}
