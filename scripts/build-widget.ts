// `npm run build:widget` (also the first step of `npm run build`): bundles the widget
// (src/widget/client) into dist/svc-widget.js, prints its size raw and gzipped, and fails
// when it is over the 40 KB gzipped budget (docs/decisions.md "Widget"). The server builds the same bundle on
// first request when run from source; the compiled binary embeds this file.
import { join } from "node:path";
import { buildWidgetCode, WIDGET_MAX_GZIP_BYTES } from "../src/widget/bundle.ts";

const root = join(import.meta.dir, "..");

export async function buildWidgetFile(outfile = join(root, "dist/svc-widget.js")): Promise<{ file: string; bytes: number; gzipBytes: number }> {
  const code = await buildWidgetCode();
  const gzipBytes = Bun.gzipSync(code).byteLength;
  if (gzipBytes > WIDGET_MAX_GZIP_BYTES) throw new Error(`widget.js is ${gzipBytes} bytes gzipped, over the ${WIDGET_MAX_GZIP_BYTES}-byte budget`);
  await Bun.write(outfile, code);
  console.log(
    `built ${outfile}: ${(code.length / 1024).toFixed(1)} KB, ${(gzipBytes / 1024).toFixed(1)} KB gzipped (budget ${WIDGET_MAX_GZIP_BYTES / 1024} KB)`,
  );
  return { file: outfile, bytes: code.length, gzipBytes };
}

if (import.meta.main) await buildWidgetFile(process.argv[2]);
