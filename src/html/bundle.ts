// A browser script served by the app: TypeScript bundled by Bun.build into one minified IIFE with
// no imports left. The compiled binary carries the bundle prebuilt by `npm run build`
// (scripts/build.ts) as an embedded file, since no TypeScript source exists beside it; from source
// (`npm start`, tests) it is built on first use, so both serve the same code with no separate step.

export interface ScriptBundle {
  code: string;
  /** Strong validator for If-None-Match: the bundle's SHA-256. */
  etag: string;
}

/** Bundles a browser entry point from TypeScript: one minified IIFE. */
export async function bundleScript(entry: string): Promise<string> {
  const result = await Bun.build({ entrypoints: [entry], target: "browser", format: "iife", minify: true });
  if (!result.success || !result.outputs[0]) throw new Error(`bundle of ${entry} failed:\n${result.logs.map(String).join("\n")}`);
  return result.outputs[0].text();
}

/**
 * The embedded prebuilt file whose name matches `embedded` (Bun lists embedded files as
 * name-hash.js), else a fresh build of `entry`.
 */
export async function loadScript(entry: string, embedded: RegExp): Promise<ScriptBundle> {
  const file = Bun.embeddedFiles.find((f) => embedded.test((f as Blob & { name: string }).name));
  const code = file ? await file.text() : await bundleScript(entry);
  return { code, etag: `"${new Bun.CryptoHasher("sha256").update(code).digest("base64url").slice(0, 27)}"` };
}

/** A script answer: the bundle, or 304 when the browser holds this version. */
export function scriptResponse(request: Request, bundle: ScriptBundle, cacheControl: string): Response {
  const headers = { "content-type": "text/javascript; charset=utf-8", "cache-control": cacheControl, etag: bundle.etag, "x-content-type-options": "nosniff" };
  if (request.headers.get("if-none-match") === bundle.etag) return new Response(null, { status: 304, headers });
  return new Response(bundle.code, { headers });
}
