// PGlite's WASM and file-system bundle, imported as files so that `bun build --compile` embeds
// them: a plain compile looks for them beside the binary and fails with
// `ENOENT: /$bunfs/root/pglite.data`. Under `bun run` these are paths into node_modules.
// The relative paths step around the package's `exports`, which do not list these assets.
// Compiled once per process on the HTTP thread and handed to the database's worker thread
// (src/db/pglite-thread.ts): a WebAssembly.Module crosses threads without compiling again.
import pgliteWasm from "../../node_modules/@electric-sql/pglite/dist/pglite.wasm" with { type: "file" };
import initdbWasm from "../../node_modules/@electric-sql/pglite/dist/initdb.wasm" with { type: "file" };
import pgliteData from "../../node_modules/@electric-sql/pglite/dist/pglite.data" with { type: "file" };

let compiled: Promise<{ pgliteWasmModule: WebAssembly.Module; initdbWasmModule: WebAssembly.Module }> | undefined;

export async function pgliteAssets() {
  compiled ??= (async () => ({
    pgliteWasmModule: await WebAssembly.compile(await Bun.file(pgliteWasm).arrayBuffer()),
    initdbWasmModule: await WebAssembly.compile(await Bun.file(initdbWasm).arrayBuffer()),
  }))();
  return { ...(await compiled), dataPath: pgliteData };
}
