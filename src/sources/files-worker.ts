// The files thread (src/sources/files.ts): reads one upload (src/sources/file-formats.ts) off the
// server's event loop; the caller terminates it when it runs over its time.
import { type FileResult, readUpload } from "./file-formats.ts";

declare const self: Worker;

export interface FilesRequest {
  name: string;
  bytes: Uint8Array;
}

self.onmessage = async (event: MessageEvent<FilesRequest>) => {
  let results: FileResult[];
  try {
    results = await readUpload(event.data.name, event.data.bytes);
  } catch {
    results = [{ name: event.data.name, ok: false, reason: "the file could not be read" }];
  }
  postMessage(results);
};
