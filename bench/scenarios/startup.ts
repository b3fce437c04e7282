// Startup time and idle memory: spawn → first 200 from /readyz (raw Bun.serve: /healthz), then
// RSS after idling. Runs first in a full run: it leaves a migrated PGlite DATA_DIR (and a migrated
// PostgreSQL database) that later scenarios reopen.
import { fixed, printTable } from "../report.ts";
import { type BenchContext, baselineServer, options, ourServer, rssMiB, type ServerSpec, startServer } from "../runner.ts";

interface StartupRow {
  mode: string;
  readyMs?: number;
  idleRssMiB?: number;
  note?: string;
}

/** Starts a server, times it to ready, lets it idle, reads its RSS, stops it. */
async function measureStartup(mode: string, spec: ServerSpec, work: string): Promise<StartupRow> {
  const server = await startServer(spec, work);
  try {
    await Bun.sleep(options.idleS * 1000);
    return { mode, readyMs: server.readyMs, idleRssMiB: rssMiB(server.pid) };
  } finally {
    await server.stop();
  }
}

export async function startup({ work, dataDir, pg }: BenchContext): Promise<void> {
  const rows: StartupRow[] = [];
  rows.push(await measureStartup("raw Bun.serve (reference)", baselineServer(), work));
  const pglite = ourServer("ours (PGlite)", { DATA_DIR: dataDir, LOG_LEVEL: "error" });
  rows.push(await measureStartup("ours, PGlite, new DATA_DIR", pglite, work));
  rows.push(await measureStartup("ours, PGlite, same DATA_DIR again", pglite, work));
  if ("url" in pg) {
    const spec = ourServer("ours (PostgreSQL)", { DATABASE_URL: pg.url, SECRET_KEY: pg.secretKey, LOG_LEVEL: "error" });
    rows.push(await measureStartup("ours, PostgreSQL, new database", spec, work));
    rows.push(await measureStartup("ours, PostgreSQL, same database again", spec, work));
  } else {
    rows.push({ mode: "ours, PostgreSQL", note: `skipped: ${pg.skipped}` });
  }
  const notes = rows.some((row) => row.note);
  printTable(
    "Startup: spawn → first 200 from /readyz (raw: /healthz); RSS after idling",
    ["mode", "ready ms", "idle RSS MiB", ...(notes ? ["note"] : [])],
    rows.map((row) => [row.mode, fixed(row.readyMs, 0), fixed(row.idleRssMiB, 1), ...(notes ? [row.note ?? ""] : [])]),
    notes ? "lrrl" : "lrr",
  );
}
