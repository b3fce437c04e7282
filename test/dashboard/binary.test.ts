// The compiled binary serves /assets/dashboard.js from the bundle embedded at build time: it runs
// in an empty directory, where no TypeScript source exists to build from, and the script's bytes
// are those `npm run build` wrote beside it (svc-dashboard.js), not the widget's.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildBinary } from "../../scripts/build.ts";
import { engine } from "../support/db.ts";
import { type RunningServer, startServer, tempDir } from "../support/process.ts";

// What is tested is the build, not a database: the PostgreSQL pass of the suite skips it.
const skip = engine === "postgres";

let binary: string;
let server: RunningServer | undefined;

beforeAll(async () => {
  if (skip) return;
  binary = await buildBinary(join(tempDir("svc-dashboard-bin-"), "svc-agents"));
}, 300_000);
afterAll(() => {
  server?.proc.kill("SIGKILL");
});

test.skipIf(skip)(
  "the binary alone serves the prebuilt dashboard script",
  async () => {
    // A first start initialises a new embedded database: allowed a while on a busy machine.
    server = await startServer({ CWD: tempDir("svc-dashboard-empty-") }, [binary, "serve"], 240_000);
    const res = await fetch(`${server.url}/assets/dashboard.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const code = await res.text();
    expect(code).toBe(readFileSync(join(dirname(binary), "svc-dashboard.js"), "utf8"));
    expect(code).toContain("data-busy");
    expect(code).not.toBe(readFileSync(join(dirname(binary), "svc-widget.js"), "utf8"));
    // The validator lets a browser keep it.
    const again = await fetch(`${server.url}/assets/dashboard.js`, { headers: { "if-none-match": res.headers.get("etag")! } });
    expect(again.status).toBe(304);
    // The API reference viewer's files are embedded too (the page at /api/docs loads them).
    const viewer = await fetch(`${server.url}/assets/api-docs/swagger-ui-bundle.js`);
    expect(viewer.status).toBe(200);
    expect(await viewer.text()).toBe(readFileSync(join(import.meta.dir, "../../node_modules/swagger-ui-dist/swagger-ui-bundle.js"), "utf8"));
    expect((await fetch(`${server.url}/assets/api-docs/swagger-ui.css`)).status).toBe(200);
    expect(await server.stop()).toBe(0);
  },
  300_000,
);
