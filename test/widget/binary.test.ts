// The compiled binary serves /widget.js from the bundle embedded at build time: it
// runs in an empty directory, where no TypeScript source exists to build from, and its bytes are
// those `npm run build` wrote beside it. /demo works there too, and the banner names it.
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
  binary = await buildBinary(join(tempDir("svc-widget-bin-"), "svc-agents"));
}, 120_000);
afterAll(() => {
  server?.proc.kill("SIGKILL");
});

test.skipIf(skip)(
  "the binary alone serves the prebuilt widget and the demo page",
  async () => {
    server = await startServer({ CWD: tempDir("svc-widget-empty-") }, [binary, "serve"]);
    const res = await fetch(`${server.url}/widget.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await res.text()).toBe(readFileSync(join(dirname(binary), "svc-widget.js"), "utf8"));
    expect((await fetch(`${server.url}/demo`)).status).toBe(200);
    expect(server.stdout()).toMatch(/^Demo page: {3}http:\/\/\S+\/demo /m);
    expect(await server.stop()).toBe(0);
  },
  120_000,
);
