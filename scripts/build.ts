// `npm run build`: one self-contained executable, dist/svc-agents, via `bun build --compile`.
// PGlite's WASM and data files and the migrations are imported as embedded files
// (src/db/pglite-assets.ts, src/db/migrations/index.ts), so the binary starts on an empty
// directory with nothing beside it. BUILD_TARGET picks another platform, e.g. bun-linux-arm64.
// The widget (/widget.js) is bundled first (scripts/build-widget.ts) and embedded the same way:
// a second entrypoint imports it `with { type: "file" }`, which puts it in Bun.embeddedFiles,
// where src/widget/bundle.ts finds it. The dashboard's script (/assets/dashboard.js) is bundled
// and embedded the same way, as svc-dashboard.js (src/dashboard/bundle.ts). The embedded
// database's worker thread (src/db/pglite-worker.ts) is an entrypoint too: Bun embeds a worker
// only when it is one. So are the inbound email's reply extraction thread (src/mail-in/reply-worker.ts) and
// the knowledge sources' threads (src/sources/extract-worker.ts, files-worker.ts, sitemap-worker.ts).
import { dirname, join } from "node:path";
import { buildDashboardCode } from "../src/dashboard/bundle.ts";
import { buildWidgetFile } from "./build-widget.ts";

const root = join(import.meta.dir, "..");

export async function buildBinary(outfile = join(root, "dist/svc-agents")): Promise<string> {
  const target = process.env.BUILD_TARGET ? [`--target=${process.env.BUILD_TARGET}`] : [];
  // Beside the binary, so builds to different places never share these files.
  await buildWidgetFile(join(dirname(outfile), "svc-widget.js"));
  await Bun.write(join(dirname(outfile), "svc-dashboard.js"), await buildDashboardCode());
  const embed = join(dirname(outfile), "widget-embed.ts");
  await Bun.write(
    embed,
    `import file from "./svc-widget.js" with { type: "file" };\nimport dashboard from "./svc-dashboard.js" with { type: "file" };\nexport default [file, dashboard];\n`,
  );
  const proc = Bun.spawn(
    [
      process.execPath,
      "build",
      "--compile",
      "--minify-syntax",
      "--entry-naming=[name].[ext]",
      ...target,
      join(root, "src/main.ts"),
      embed,
      join(root, "src/db/pglite-worker.ts"),
      join(root, "src/mail-in/reply-worker.ts"),
      join(root, "src/sources/extract-worker.ts"),
      join(root, "src/sources/files-worker.ts"),
      join(root, "src/sources/sitemap-worker.ts"),
      "--outfile",
      outfile,
    ],
    {
      cwd: root,
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`bun build failed (${code}):\n${out}${err}`);
  return outfile;
}

if (import.meta.main) {
  const file = await buildBinary(process.argv[2]);
  console.log(`built ${file}`);
}
