// /widget.js: the client in ./client, bundled and minified by Bun.build. The compiled
// binary carries the bundle prebuilt by `npm run build` (scripts/build-widget.ts) as an embedded
// file; from source (`npm start`, tests) it is built from TypeScript on first use, so both serve
// the same code with no separate step.
import { join } from "node:path";

export interface WidgetBundle {
  code: string;
  /** Strong validator for If-None-Match: the bundle's SHA-256. */
  etag: string;
  gzipBytes: number;
}

export const WIDGET_ENTRY = join(import.meta.dir, "client/main.ts");
/** The name scripts/build.ts gives the prebuilt file, as Bun lists it among embedded files (name-hash.js). */
const EMBEDDED = /^svc-widget(?:-[a-z0-9]+)?\.js$/;
/** The widget stays under 40 KB gzipped; the build fails above it. */
export const WIDGET_MAX_GZIP_BYTES = 40 * 1024;

/** Bundles the client from TypeScript: one minified IIFE, no imports left. */
export async function buildWidgetCode(): Promise<string> {
  const result = await Bun.build({ entrypoints: [WIDGET_ENTRY], target: "browser", format: "iife", minify: true });
  if (!result.success || !result.outputs[0]) throw new Error(`widget build failed:\n${result.logs.map(String).join("\n")}`);
  return result.outputs[0].text();
}

function describe(code: string): WidgetBundle {
  const etag = `"${new Bun.CryptoHasher("sha256").update(code).digest("base64url").slice(0, 27)}"`;
  return { code, etag, gzipBytes: Bun.gzipSync(code).byteLength };
}

/** The embedded prebuilt bundle (compiled binary), else a fresh build from source. */
export async function loadWidgetBundle(): Promise<WidgetBundle> {
  const embedded = Bun.embeddedFiles.find((file) => EMBEDDED.test((file as Blob & { name: string }).name));
  return describe(embedded ? await embedded.text() : await buildWidgetCode());
}
