// Uploaded files as documents (README "Knowledge sources"): PDF, DOCX, HTML, Markdown and plain
// text, one or many, or zips of them. Each upload is read on a thread of its own
// (src/sources/files-worker.ts), given FILES_TIMEOUT_MS for all its files and terminated past it;
// each readable file becomes a document (title from its first heading, else the file name), each
// unreadable one is reported with its reason. Nothing here answers 5xx for a file's content.
// At most FILE_READERS.threads uploads are read at once per process (each on one thread); the
// next FILE_READERS.waiting wait their turn, and past them an upload is refused at once: 503
// `busy` with Retry-After (docs/decisions.md "Uploads: a bounded number of reading threads").
import { recordActivity } from "../activity/log.ts";
import type { DocStatus } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import type { Actor } from "../kit/actor.ts";
import { createDoc, DOC_LIMITS } from "../knowledge/docs.ts";
import { orgDocBytes } from "../knowledge/source-docs.ts";
import { Busy, createSlots, type Slots } from "../kit/slots.ts";
import { FILE_LIMITS, type FileResult } from "./file-formats.ts";
import type { FilesRequest } from "./files-worker.ts";

/** Reading every file of one upload. */
export const FILES_TIMEOUT_MS = 60_000;

export const FILE_READERS = {
  /** Uploads read at once (a thread each), and uploads waiting for one. */
  threads: 2,
  waiting: 4,
  /** Retry-After of a refusal, seconds. */
  retryAfter: 10,
} as const;

export const createFileReaders = (): Slots => createSlots({ running: FILE_READERS.threads, waiting: FILE_READERS.waiting });

const busy = (message: string) =>
  new AppError(503, "busy", message, undefined, { "retry-after": String(FILE_READERS.retryAfter) }, { retryAfter: FILE_READERS.retryAfter });

/** A reading thread for the upload: waits in line (at most FILES_TIMEOUT_MS), refused when the line is full. */
async function takeReader(deps: Pick<Deps, "fileReaders" | "timers">, signal?: AbortSignal): Promise<() => void> {
  const bound = deps.timers.deadline(FILES_TIMEOUT_MS);
  try {
    return (await deps.fileReaders.acquire(signal ? AbortSignal.any([bound, signal]) : bound)).release;
  } catch (error) {
    if (error instanceof Busy)
      throw busy(`The server is reading ${FILE_READERS.threads} uploads with ${FILE_READERS.waiting} waiting; try again in a few seconds.`);
    if (bound.aborted) throw busy(`No thread to read the files was free for ${FILES_TIMEOUT_MS / 1000} s; try again later.`);
    throw error;
  }
}

export interface FilesInput {
  files: { name: string; content_base64: string }[];
  tags?: string[];
  status?: DocStatus;
}

/** Reads one file within `timeoutMs`, what is left of the upload's `uploadMs` (the limit the reason names). */
function readOnThread(name: string, bytes: Uint8Array, timeoutMs: number, uploadMs: number): Promise<FileResult[]> {
  return new Promise((resolve) => {
    const worker = new Worker(new URL("./files-worker.ts", import.meta.url).href);
    const finish = (results: FileResult[]) => {
      clearTimeout(timer);
      worker.terminate();
      resolve(results);
    };
    const timer = setTimeout(() => finish([{ name, ok: false, reason: `the upload took longer than ${uploadMs / 1000} s to read` }]), timeoutMs);
    worker.onmessage = (event: MessageEvent<FileResult[]>) => finish(event.data);
    worker.onerror = () => finish([{ name, ok: false, reason: "the file could not be read" }]);
    worker.postMessage({ name, bytes } satisfies FilesRequest);
  });
}

export async function importFiles(
  deps: Pick<Deps, "config" | "db" | "fileReaders" | "knowledge" | "now" | "timers">,
  orgId: string,
  actor: Actor,
  input: FilesInput,
  timeoutMs = FILES_TIMEOUT_MS,
  signal?: AbortSignal,
) {
  const problems: ErrorDetail[] = [];
  const decoded = input.files.map((file, i) => {
    if (file.name.length < 1 || file.name.length > 255 || /[\x00-\x1f\x7f/\\]/.test(file.name))
      problems.push({ path: `/files/${i}/name`, message: "must be a file name of 1 to 255 characters" });
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(file.content_base64)) problems.push({ path: `/files/${i}/content_base64`, message: "must be base64" });
    return Buffer.from(file.content_base64, "base64");
  });
  decoded.forEach(
    (bytes, i) =>
      bytes.byteLength > FILE_LIMITS.fileBytes &&
      problems.push({ path: `/files/${i}/content_base64`, message: `must be at most ${FILE_LIMITS.fileBytes} bytes` }),
  );
  if (problems.length > 0) throw AppError.badRequest("The files cannot be imported.", problems);
  const release = await takeReader(deps, signal);
  try {
    return await readAndStore(deps, orgId, actor, input, decoded, timeoutMs);
  } finally {
    release();
  }
}

async function readAndStore(
  deps: Pick<Deps, "config" | "db" | "knowledge" | "now">,
  orgId: string,
  actor: Actor,
  input: FilesInput,
  decoded: Buffer[],
  timeoutMs: number,
) {
  const started = Date.now();
  const docs: { file: string; id: string; title: string }[] = [];
  const failed: { file: string; reason: string }[] = [];
  const failedAt: number[] = [];
  // What the org may still take (KNOWLEDGE_MAX_BYTES_PER_ORG): a file past it is reported, not imported.
  let bytesLeft = deps.config.knowledgeMaxBytesPerOrg - (await orgDocBytes(deps, orgId));
  for (const [i, file] of input.files.entries()) {
    const left = Math.max(1, timeoutMs - (Date.now() - started));
    for (const result of await readOnThread(file.name, new Uint8Array(decoded[i]!), left, timeoutMs)) {
      const before = failed.length;
      if (!result.ok) failed.push({ file: result.name, reason: result.reason });
      else if (result.markdown.trim() === "") failed.push({ file: result.name, reason: "there is no readable text in it" });
      else if (result.markdown.length > DOC_LIMITS.body)
        failed.push({ file: result.name, reason: `its text is ${result.markdown.length} characters; a document holds at most ${DOC_LIMITS.body}` });
      else if (Buffer.byteLength(result.markdown) > bytesLeft)
        failed.push({
          file: result.name,
          reason: `the organisation's documents would pass ${deps.config.knowledgeMaxBytesPerOrg} bytes, the most sources and uploads may bring in`,
        });
      else {
        bytesLeft -= Buffer.byteLength(result.markdown);
        const doc = await createDoc(deps, orgId, {
          title: result.title.replace(/\s+/g, " ").trim().slice(0, DOC_LIMITS.title) || "Untitled",
          body: result.markdown,
          tags: input.tags,
          status: input.status,
        });
        await recordActivity(deps, {
          orgId,
          actor,
          action: "doc.imported",
          objectType: "doc",
          objectId: doc.id,
          summary: { source: "file", file_name: result.name.slice(0, 255), status: doc.status, characters: doc.body.length },
        });
        docs.push({ file: result.name, id: doc.id, title: doc.title });
      }
      if (failed.length > before) failedAt.push(i);
    }
  }
  // Nothing readable: the upload itself is refused, each file's reason at its index.
  if (docs.length === 0)
    throw AppError.badRequest(
      "None of the files could be imported.",
      failed.map((f, n) => ({ path: `/files/${failedAt[n]}`, message: `${f.file}: ${f.reason}` })),
    );
  return { docs, failed };
}
